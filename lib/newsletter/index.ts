import { after } from 'next/server';
import { absoluteUrl } from '../runtime/site';
import { publishedPosts, site, welcomeContent, type Post } from '../content';
import type { Settings } from '../settings';
import { createTransport } from '../services/mail/transport';
import type { Store } from '../services/store/types';
import { unsubscribeLinks } from '../subscribers/links';
import type { OutgoingMail } from '../services/store/types';
import {
  encodeMail,
  mailSiteOf,
  personalEncodedMail,
  personalMail,
  renderNewsletterMail,
  renderWelcomeMail,
  type EncodedMail,
  type NewsletterMail,
} from './mail';
import type { MailThreadFactory, ThreadMessage } from './mail-thread';
import { sendBatches, type BatchSettings } from './platform';
import { createNewsletter, type Newsletter, type NewsletterMailer, type StepResult } from './sender';

/**
 * The newsletter: every post that becomes published is mailed once to the
 * subscribers confirmed at that moment (lib/newsletter/sender.ts), as a mail
 * made for mail clients (lib/newsletter/mail.ts).
 */
export type { Newsletter, StepResult } from './sender';

export type NewsletterEnv = Pick<Settings, 'site' | 'mail' | 'newsletter' | 'bounces'>;

/** The newsletter's clock: leases, retries and batch budgets are real time (the content's clock may be moved in tests). */
const newsletterClock = Date.now;

const mailSite = () => mailSiteOf(site(), absoluteUrl('/'));

/** Each send's mail encoded once (lib/newsletter/mail.ts, encodeMail), for as long as the sender keeps that mail. */
const encodedMails = new WeakMap<NewsletterMail, EncodedMail>();

/** The site's posts rendered into mail, and each copy addressed with its own unsubscribe links. */
export const siteMailer: NewsletterMailer<Post> = {
  render: (post) => renderNewsletterMail(post, mailSite()),
  personalize: (mail: NewsletterMail, recipient, token) => {
    let encoded = encodedMails.get(mail);
    if (!encoded) encodedMails.set(mail, (encoded = encodeMail(mail)));
    return personalEncodedMail(encoded, recipient, unsubscribeLinks(token), mailSite());
  },
};

/**
 * The welcome mail to a newly confirmed reader, when the author wrote one (content/newsletter-welcome.md;
 * undefined otherwise), with its own unsubscribe links. It is one message, not a post's: its Message-ID
 * is the outbox's, as for any form mail.
 */
export async function welcomeMailTo(email: string, unsubscribeToken: string): Promise<OutgoingMail | undefined> {
  const welcome = welcomeContent();
  if (!welcome) return undefined;
  const mail = personalMail(await renderWelcomeMail(welcome, mailSite()), { email }, unsubscribeLinks(unsubscribeToken), mailSite());
  return { ...mail, headers: Object.fromEntries(Object.entries(mail.headers ?? {}).filter(([name]) => name !== 'Message-ID')) };
}

/**
 * The newsletter of this site: its own pooled SMTP transport, sent on at NEWSLETTER_RATE
 * (so a long send never holds up the forms' mail, which has its own worker and
 * connection), the published posts, and the real clock. `thread`: over SMTP, the copies are
 * made and sent in a mail thread made by it (lectern's server gives ./mail-thread.ts's).
 */
export function siteNewsletter(
  settings: NewsletterEnv,
  store: Store,
  log: Pick<Console, 'log' | 'warn'> = console,
  options: { thread?: MailThreadFactory } = {},
): Newsletter {
  const common = {
    store,
    clock: newsletterClock,
    settings: { ...settings.newsletter, retryBaseMs: settings.mail.retryBaseMs, bounceAddress: settings.mail.bounceAddress },
    log,
    posts: publishedPosts,
  };
  // Over SMTP on lectern's server, each reader's copy is made and sent in the mail thread (./mail-thread.ts).
  if (options.thread && settings.mail.smtpUrl) {
    const { name, url, replyTo } = mailSite();
    return createNewsletter<Post, ThreadMessage>({
      ...common,
      transport: options.thread({ settings, site: { name, url, ...(replyTo ? { replyTo } : {}) } }),
      mailer: {
        render: siteMailer.render,
        personalize: (mail, recipient, token) => ({ mail, to: { email: recipient.email }, unsubscribe: unsubscribeLinks(token) }),
      },
    });
  }
  return createNewsletter({ ...common, transport: createTransport(settings, () => site().name, true), mailer: siteMailer });
}

/** A cron call's sending on a platform (lib/newsletter/platform.ts): one batch before the answer, the rest in `after()`. */
export function sendSiteBatches(newsletter: Newsletter, settings: BatchSettings): Promise<StepResult> {
  return sendBatches(newsletter, settings, { clock: newsletterClock, defer: after });
}
