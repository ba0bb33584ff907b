import { after } from 'next/server';
import { absoluteUrl } from '../config';
import { publishedPosts, site, type Post } from '../content';
import type { Settings } from '../settings';
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

export type NewsletterEnv = Pick<Settings, 'site' | 'mail' | 'newsletter' | 'bounces'>;

/** The newsletter's clock: leases, retries and batch budgets are real time (the content's clock may be moved in tests). */
const newsletterClock = Date.now;

const mailSite = () => {
  const { name, language, author } = site();
  return { name, language, url: absoluteUrl('/'), ...(author.email ? { replyTo: { name: author.name, address: author.email } } : {}) };
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
    settings: { ...settings.newsletter, retryBaseMs: settings.mail.retryBaseMs, bounceAddress: settings.mail.bounceAddress },
    log,
    posts: publishedPosts,
    mailer: siteMailer,
  });
}

/** A cron call's sending on a platform (lib/newsletter/platform.ts): one batch before the answer, the rest in `after()`. */
export function sendSiteBatches(newsletter: Newsletter, settings: BatchSettings): Promise<StepResult> {
  return sendBatches(newsletter, settings, { clock: newsletterClock, defer: after });
}
