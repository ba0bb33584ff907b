import { createHash } from 'node:crypto';
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp';
import { escapeHtml } from '../http/html';
import { newsletterHeaders, type UnsubscribeLinks } from '../services/mail/list-headers';
import type { InlineImage, OutgoingMail, SendableMail } from '../services/store/types';

/*
 * A post's mail as a send keeps it, and each reader's copy made from it. A module of its own, apart
 * from the rendering (./mail.ts: markdown, juice, html-to-text): the newsletter's mail thread
 * (./mail-thread-worker.ts) makes the copies and loads no more than this.
 */

/** A post's mail as a send stores it, once: everything but the recipient and their unsubscribe link. */
export type NewsletterMail = { slug: string; subject: string; html: string; text: string; images?: InlineImage[] };

/**
 * `replyTo`: where a reader's reply goes (the author's address, `author.email` in site.yaml), when set.
 * `postalAddress`: the sender's postal address for the footer (`postalAddress` in site.yaml), when set.
 */
export type MailSite = { name: string; url: string; language: string; replyTo?: { name: string; address: string }; postalAddress?: string };

/** Stands for each recipient's own unsubscribe page in the stored mail; never a real address (RFC 2606 `.invalid`). */
export const UNSUBSCRIBE_PLACEHOLDER = 'https://unsubscribe.invalid/lectern';

/** The Message-ID of a post's mail to one address: the same every time it is sent, so a repeat is recognisably the same message. */
export function newsletterMessageId(slug: string, email: string, siteUrl: string): string {
  const digest = createHash('sha256').update(`${slug}\n${email.toLowerCase()}`).digest('base64url').slice(0, 24);
  return `<${slug}.${digest}@${new URL(siteUrl).hostname}>`;
}

/**
 * RFC 2919 List-Id: the site's name and the newsletter's id under the site's
 * host. The name is kept to characters a phrase takes unquoted: a quoted one
 * would be sent encoded (RFC 2047), which list filters do not all read.
 */
export function newsletterListId(siteName: string, siteUrl: string): string {
  const name = siteName
    .replace(/["(),.:;<>@[\]\\\r\n]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return `${name} <newsletter.${new URL(siteUrl).hostname}>`;
}

/**
 * A post's mail encoded once per send: its plain-text and HTML parts as quoted-printable, cut where
 * each reader's unsubscribe link goes. Quoted-printable pieces join with soft line breaks (`=` at a
 * line's end, RFC 2045 6.7), so a reader's copy encodes only the link: a send of 10,000 does not
 * make 10,000 MIME encodings of the same post (lib/newsletter/sender.ts).
 */
export type EncodedMail = { mail: MailEnvelope; text: EncodedPart; html: EncodedPart };
/** What a copy takes from the post's mail beside its parts (the text and HTML are not kept once encoded). */
type MailEnvelope = Pick<NewsletterMail, 'slug' | 'subject' | 'images'>;
type EncodedPart = { head: Buffer; pieces: Buffer[] };

const SOFT_BREAK = Buffer.from('=\r\n');
const quotedPrintable = (value: string) => qpWrap(qpEncode(Buffer.from(value)), 76);

function encodedPart(contentType: string, value: string): EncodedPart {
  return {
    head: Buffer.from(`Content-Type: ${contentType}; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n`),
    pieces: value.split(UNSUBSCRIBE_PLACEHOLDER).map((piece) => Buffer.from(quotedPrintable(piece))),
  };
}

/** Encodes a post's mail for a send: once, however many readers it goes to. */
export function encodeMail(mail: NewsletterMail): EncodedMail {
  const { slug, subject, images } = mail;
  return { mail: { slug, subject, ...(images ? { images } : {}) }, text: encodedPart('text/plain', mail.text), html: encodedPart('text/html', mail.html) };
}

/** One part of a reader's copy: the pieces encoded for the send, with the reader's link between them. */
function joined(part: EncodedPart, link: string): Buffer {
  const encodedLink = Buffer.from(quotedPrintable(link));
  const chunks = [part.head];
  part.pieces.forEach((piece, index) => {
    if (index > 0) chunks.push(SOFT_BREAK, encodedLink, SOFT_BREAK);
    chunks.push(piece);
  });
  return Buffer.concat(chunks);
}

/** A reader's copy of a post's mail encoded for the send: the same message as personalMail's, its parts encoded already. */
export function personalEncodedMail(
  encoded: EncodedMail,
  to: { email: string },
  unsubscribe: UnsubscribeLinks,
  site: Pick<MailSite, 'name' | 'url' | 'replyTo'>,
): SendableMail {
  return {
    ...envelopeOf(encoded.mail, to, unsubscribe, site),
    encoded: { text: joined(encoded.text, unsubscribe.page), html: joined(encoded.html, escapeHtml(unsubscribe.page)) },
  };
}

/** Everything of a reader's copy but its text and HTML: the address, the subject, the headers with the reader's links, the images. */
function envelopeOf(
  mail: MailEnvelope,
  to: { email: string },
  unsubscribe: UnsubscribeLinks,
  site: Pick<MailSite, 'name' | 'url' | 'replyTo'>,
): Omit<OutgoingMail, 'text' | 'html'> {
  return {
    to: { address: to.email },
    ...(site.replyTo ? { replyTo: site.replyTo } : {}),
    subject: mail.subject,
    headers: {
      ...newsletterHeaders(unsubscribe),
      'List-Id': newsletterListId(site.name, site.url),
      'Message-ID': newsletterMessageId(mail.slug, to.email, site.url),
    },
    ...(mail.images ? { images: mail.images } : {}),
  };
}

/**
 * The stored mail for one recipient: their address, their own unsubscribe links, the fixed
 * Message-ID. The name typed with a subscription never goes into a header: anyone may have typed
 * it for the address (README, Mail bombing).
 */
export function personalMail(
  mail: NewsletterMail,
  to: { email: string },
  unsubscribe: UnsubscribeLinks,
  site: Pick<MailSite, 'name' | 'url' | 'replyTo'>,
): OutgoingMail {
  return {
    ...envelopeOf(mail, to, unsubscribe, site),
    html: mail.html.replaceAll(UNSUBSCRIBE_PLACEHOLDER, escapeHtml(unsubscribe.page)),
    text: mail.text.replaceAll(UNSUBSCRIBE_PLACEHOLDER, unsubscribe.page),
  };
}
