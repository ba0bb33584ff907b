import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { loadContent } from '../content/load';
import { urls } from '../content/urls';
import { createTransport, mailFrom, message } from '../services/mail/transport';
import type { Store } from '../services/store';
import { unsubscribeLinks } from '../subscribers/links';
import { mailSiteOf, personalMail, renderNewsletterMail, type MailPost, type MailSite } from './mail';
import { watchStatus, type CliIo } from './status';
import type { Settings } from '../settings';

export const NEWSLETTER_USAGE = `usage: npm run newsletter -- <command>
  status                  every send: post, started, recipients, sent, waiting, failed, bounced (hard, soft), complaints; suspended addresses and why
  preview <slug>          writes the post's mail as it would go out: an .eml and an .html file
  test <slug> <address>   sends one copy of the post's mail to one address
  retry <slug>            sends again to the recipients of a send whose mail failed (suspended addresses excepted)`;

export type NewsletterCommand =
  { name: 'status' } | { name: 'preview'; slug: string } | { name: 'test'; slug: string; address: string } | { name: 'retry'; slug: string };

/** The command in the arguments, or what is wrong with them. */
export function parseNewsletterCommand(args: readonly string[]): { ok: true; command: NewsletterCommand } | { ok: false; error: string } {
  const [name, ...rest] = args;
  const want = (count: number) => rest.length === count;
  if (name === 'status' && want(0)) return { ok: true, command: { name } };
  if ((name === 'preview' || name === 'retry') && want(1)) return { ok: true, command: { name, slug: rest[0] ?? '' } };
  if (name === 'test' && want(2)) {
    const address = rest[1] ?? '';
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) return { ok: false, error: `"${address}" is not an email address` };
    return { ok: true, command: { name, slug: rest[0] ?? '', address } };
  }
  return { ok: false, error: name ? `unknown command or arguments: ${args.join(' ')}` : 'no command given' };
}

/** Any post of the content folder, published or not: an author previews a post before it goes out. */
export function contentPost(slug: string, site: Settings['site']): MailPost | undefined {
  const post = loadContent(site.contentDir).posts.find((entry) => entry.slug === slug);
  return post && { ...post, url: urls.post(post.slug), markdownUrl: urls.postMarkdown(post.slug) };
}

function contentSite({ contentDir, url }: Settings['site']): MailSite {
  return mailSiteOf(loadContent(contentDir).site, `${url}/`);
}

/**
 * The mail of a post for one address, as a send makes it, but with an
 * unsubscribe link that unsubscribes nobody and a Message-ID of its own, so a
 * copy is never taken for the real message.
 */
export async function sampleMail(post: MailPost, address: string, siteSettings: Settings['site']) {
  const site = contentSite(siteSettings);
  const mail = personalMail(await renderNewsletterMail(post, site), { email: address }, unsubscribeLinks(randomBytes(24).toString('base64url')), site);
  return { ...mail, headers: { ...mail.headers, 'Message-ID': `<sample.${randomBytes(9).toString('base64url')}@${new URL(site.url).hostname}>` } };
}

/** Runs one command; the exit status. */
export async function runNewsletterCommand(command: NewsletterCommand, settings: Settings, store: () => Store, io: CliIo): Promise<number> {
  if (command.name === 'status') {
    return watchStatus(store(), io);
  }
  if (command.name === 'retry') {
    const count = await store().newsletter.retryFailed(command.slug, Date.now());
    io.out(
      count === 0
        ? `No failed recipient to retry for "${command.slug}".`
        : `${count} recipient${count === 1 ? '' : 's'} of "${command.slug}" queued again: the server sends them at its next check.`,
    );
    return 0;
  }
  const post = contentPost(command.slug, settings.site);
  if (!post) {
    io.err(`No post "${command.slug}" in ${settings.site.contentDir}/posts.`);
    return 1;
  }
  if (command.name === 'preview') {
    const mail = await sampleMail(post, 'reader@example.com', settings.site);
    const folder = path.join(settings.store.dataDir, 'newsletter-preview');
    fs.mkdirSync(folder, { recursive: true });
    const eml = await new MailComposer(message(mail, mailFrom(settings, contentSite(settings.site).name))).compile().build();
    fs.writeFileSync(path.join(folder, `${post.slug}.eml`), eml);
    fs.writeFileSync(path.join(folder, `${post.slug}.html`), mail.html);
    io.out(`Wrote ${path.join(folder, `${post.slug}.eml`)} (open it in a mail program) and ${path.join(folder, `${post.slug}.html`)} (open it in a browser).`);
    return 0;
  }
  const transport = createTransport(settings, () => contentSite(settings.site).name);
  try {
    await transport.send(await sampleMail(post, command.address, settings.site));
  } finally {
    transport.close?.();
  }
  io.out(
    transport.kind === 'smtp'
      ? `Sent "${post.title}" to ${command.address}.`
      : `SMTP_URL is not set: the message is an .eml file in the outbox folder (${settings.mail.outboxDir}).`,
  );
  return 0;
}
