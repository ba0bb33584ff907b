import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Settings } from '../../settings';
import type { SendableMail } from '../store/types';
import { verpAddress } from './envelope';

/**
 * Sends one message. `id` (the outbox entry's) makes its Message-ID: a message sent again after a
 * crash between sending and marking it sent carries the same one, so a reader's mail program can
 * tell it is the same message.
 */
export type MailTransport = { readonly kind: 'smtp' | 'outbox'; send(mail: SendableMail, id?: string, bounceToken?: string): Promise<void>; close?(): void };

/** The header Postmark hands back as `Metadata` in its bounce and complaint webhooks (it strips it from the message). */
export const POSTMARK_BOUNCE_HEADER = 'X-PM-Metadata-bounce-token';

/** Connections a pooled transport keeps open (the newsletter's). */
export const POOL_CONNECTIONS = 3;

/** A failure the mail server said is permanent (an SMTP 5xx reply): sending again will not help. */
export function isPermanentFailure(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | undefined)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

export type TransportSettings = Pick<Settings, 'site' | 'mail'> & { bounces?: Pick<Settings['bounces'], 'postmarkAuth'> };
type Sender = { name: string; address: string };

/** The sender of every message: MAIL_FROM (`address` or `Name <address>`), or the site's name at no-reply@ its host. */
export function mailFrom(settings: TransportSettings, siteName: string): Sender {
  const configured = settings.mail.from;
  if (configured) {
    const match = /^(.*)<([^>]+)>\s*$/.exec(configured);
    return match ? { name: (match[1] ?? '').trim().replace(/^"|"$/g, ''), address: (match[2] ?? '').trim() } : { name: siteName, address: configured.trim() };
  }
  return { name: siteName, address: `no-reply@${new URL(settings.site.url).hostname}` };
}

/**
 * The message nodemailer composes: the stored mail, its sender and, when given, its Message-ID and
 * its envelope: with a bounce address and a token, the envelope sender (Return-Path) is that
 * message's own VERP address, so a bounce names the message; From stays the sender's. With
 * Postmark's webhook set up, the token also goes in the header Postmark returns as its metadata
 * (Postmark bounces to a Return-Path of its own).
 */
export function message(
  mail: SendableMail,
  from: Sender,
  messageId?: string,
  bounce?: { address: string | undefined; token: string | undefined; postmark?: boolean },
) {
  const verp = bounce?.address && bounce.token ? verpAddress(bounce.address, bounce.token) : undefined;
  return {
    ...(messageId ? { messageId } : {}),
    ...(verp ? { envelope: { from: verp, to: [mail.to.address] } } : {}),
    from,
    to: mail.to,
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    // Parts encoded by the sender go out as they are (nodemailer's `raw`): nothing is encoded again per message.
    ...('encoded' in mail ? { text: { raw: mail.encoded.text }, html: { raw: mail.encoded.html } } : { text: mail.text, html: mail.html }),
    headers: { ...mail.headers, ...(bounce?.postmark && bounce.token ? { [POSTMARK_BOUNCE_HEADER]: bounce.token } : {}) },
    ...(mail.attachments?.length || mail.images?.length
      ? {
          attachments: [
            ...(mail.attachments ?? []).map((file) => ({ ...file, contentDisposition: 'attachment' as const })),
            ...(mail.images ?? []).map((image) => ({
              cid: image.cid,
              filename: image.filename,
              contentType: image.contentType,
              content: image.content,
              encoding: 'base64',
              contentDisposition: 'inline' as const,
            })),
          ],
        }
      : {}),
  };
}

/**
 * SMTP through nodemailer when SMTP_URL is set; otherwise one readable .eml
 * file per message in MAIL_OUTBOX_DIR (default DATA_DIR/outbox). `siteName` is
 * asked for when a message is sent: the sender's name when MAIL_FROM gives none.
 * `pooled`: SMTP keeps a few connections open, for a long run of messages (its
 * sender keeps to a rate itself: a message handed over here goes out at once).
 */
export function createTransport(settings: TransportSettings, siteName: () => string, pooled = false): MailTransport {
  const from = () => mailFrom(settings, siteName());
  const messageId = (id: string | undefined) => (id ? `<${id}@${new URL(settings.site.url).hostname}>` : undefined);
  const bounce = (token: string | undefined) => ({ address: settings.mail.bounceAddress, token, postmark: settings.bounces?.postmarkAuth !== undefined });
  // nodemailer signs each message with DKIM when given a key (lib/settings.ts: all three DKIM settings, or none).
  const dkim = settings.mail.dkim ? { dkim: settings.mail.dkim } : {};
  const smtpUrl = settings.mail.smtpUrl;
  if (smtpUrl) {
    const transporter: Transporter = pooled
      ? nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: POOL_CONNECTIONS, ...dkim })
      : nodemailer.createTransport({ url: smtpUrl, ...dkim });
    return {
      kind: 'smtp',
      send: async (mail, id, token) => void (await transporter.sendMail(message(mail, from(), messageId(id), bounce(token)))),
      close: () => transporter.close(),
    };
  }
  // Where the outbox is depends on the settings at run time: nothing in it belongs to the build.
  const folder = path.resolve(/* turbopackIgnore: true */ settings.mail.outboxDir);
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix', ...dkim });
  return {
    kind: 'outbox',
    async send(mail, id, token) {
      const info = await transporter.sendMail(message(mail, from(), messageId(id), bounce(token)));
      fs.mkdirSync(folder, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${id ?? randomUUID().slice(0, 8)}.eml`;
      writeDurably(path.join(folder, name), info.message as Buffer);
    },
    close: () => transporter.close(),
  };
}

/**
 * Writes a file and syncs it and its folder to disk before returning: the message is marked sent
 * right after, and a crash must not leave it marked sent and never written.
 */
function writeDurably(file: string, bytes: Buffer): void {
  const descriptor = fs.openSync(file, 'w');
  try {
    fs.writeFileSync(descriptor, bytes);
    fs.fsyncSync(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
  const folder = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(folder);
  } finally {
    fs.closeSync(folder);
  }
}
