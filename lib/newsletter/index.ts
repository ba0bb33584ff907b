import { absoluteUrl } from '../config';
import { publishedPosts, site, type Post } from '../content';
import type { Settings } from '../settings';
import { createTransport } from '../services/mail/transport';
import type { Store } from '../services/store/types';
import { unsubscribeLinks } from '../subscribers/links';
import { personalMail, renderNewsletterMail, type NewsletterMail } from './mail';
import { createNewsletter, type Newsletter, type NewsletterMailer } from './sender';

/**
 * The newsletter: every post that becomes published is mailed once to the
 * subscribers confirmed at that moment (lib/newsletter/sender.ts), as a mail
 * made for mail clients (lib/newsletter/mail.ts).
 */
export type { Newsletter } from './sender';

export type NewsletterEnv = Pick<Settings, 'site' | 'mail' | 'newsletter'>;

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
 * The newsletter of this site: its own pooled SMTP transport at NEWSLETTER_RATE
 * (so a long send never holds up the forms' mail, which has its own worker and
 * connection), the published posts, and the real clock.
 */
export function siteNewsletter(settings: NewsletterEnv, store: Store, log: Pick<Console, 'log' | 'warn'> = console): Newsletter {
  return createNewsletter({
    store,
    transport: createTransport(settings, () => site().name, { rate: settings.newsletter.rate }),
    clock: Date.now,
    settings: { ...settings.newsletter, retryBaseMs: settings.mail.retryBaseMs },
    log,
    posts: publishedPosts,
    mailer: siteMailer,
  });
}
