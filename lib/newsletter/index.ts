import { after } from 'next/server';
import { absoluteUrl } from '../config';
import { publishedPosts, site, type Post } from '../content';
import type { Env } from '../env';
import { createTransport } from '../services/mail/transport';
import type { Store } from '../services/store/types';
import { unsubscribeLinks } from '../subscribers/links';
import { personalMail, renderNewsletterMail, type NewsletterMail } from './mail';
import { sendBatches, type BatchSettings } from './platform';
import { createNewsletter, type Newsletter, type NewsletterMailer, type StepResult } from './sender';

/**
 * The newsletter: every post that becomes published is mailed once to the
 * subscribers confirmed at that moment (lib/newsletter/sender.ts), as a mail
 * made for mail clients (lib/newsletter/mail.ts).
 */
export type { Newsletter, StepResult } from './sender';

export type NewsletterEnv = Pick<
  Env,
  | 'SITE_URL'
  | 'SMTP_URL'
  | 'MAIL_FROM'
  | 'MAIL_OUTBOX_DIR'
  | 'DATA_DIR'
  | 'NEWSLETTER_RATE'
  | 'NEWSLETTER_CHECK_MS'
  | 'NEWSLETTER_LEASE_SECONDS'
  | 'MAIL_RETRY_BASE_MS'
>;

/** The newsletter's clock: leases, retries and batch budgets are real time (the content's clock may be moved in tests). */
const newsletterClock = Date.now;

const mailSite = () => {
  const { name, language } = site();
  return { name, language, url: absoluteUrl('/') };
};

/** The site's posts rendered into mail, and each copy addressed with its own unsubscribe links. */
export const siteMailer: NewsletterMailer<Post> = {
  render: (post) => renderNewsletterMail(post, mailSite()),
  personalize: (mail: NewsletterMail, recipient, token) => personalMail(mail, recipient, unsubscribeLinks(token), mailSite()),
};

/**
 * The newsletter of this site: its own pooled SMTP transport, sent on at NEWSLETTER_RATE
 * (so a long send never holds up the forms' mail, which has its own worker and
 * connection), the published posts, and the real clock.
 */
export function siteNewsletter(settings: NewsletterEnv, store: Store, log: Pick<Console, 'log' | 'warn'> = console): Newsletter {
  return createNewsletter({
    store,
    transport: createTransport(settings, () => site().name, true),
    clock: newsletterClock,
    settings: {
      rate: settings.NEWSLETTER_RATE,
      checkMs: settings.NEWSLETTER_CHECK_MS,
      retryBaseMs: settings.MAIL_RETRY_BASE_MS,
      leaseMs: settings.NEWSLETTER_LEASE_SECONDS * 1000,
    },
    log,
    posts: publishedPosts,
    mailer: siteMailer,
  });
}

/** A cron call's sending on a platform (lib/newsletter/platform.ts): one batch before the answer, the rest in `after()`. */
export function sendSiteBatches(newsletter: Newsletter, settings: BatchSettings): Promise<StepResult> {
  return sendBatches(newsletter, settings, { clock: newsletterClock, defer: after });
}
