import { absoluteUrl } from '../runtime/site';
import type { UnsubscribeLinks } from '../services/mail/templates';
import type { ConfirmationResend, SubscriberStore } from '../services/store/types';
import { hashToken } from '../services/tokens';

/** A confirmation link works for this long; after it, subscribing again sends a new one. */
export const CONFIRMATION_DAYS = 7;
const CONFIRMATION_MS = CONFIRMATION_DAYS * 24 * 60 * 60 * 1000;

/**
 * How often one address is mailed a confirmation, however many clients ask: once an hour, three
 * times a day. Counted in the store, so across every client and every server process.
 */
export const CONFIRMATION_RESEND: ConfirmationResend = { afterMs: 60 * 60 * 1000, atMost: 3, perMs: 24 * 60 * 60 * 1000 };

/** The oldest moment a pending subscription's confirmation link was made and still works. */
export const confirmationCutoff = (now: number) => now - CONFIRMATION_MS;

/** The page a confirmation mail links to: it shows a button, and only the button's POST confirms. */
export function confirmPageUrl(token: string): string {
  return absoluteUrl(`/subscribe/confirm?token=${encodeURIComponent(token)}`);
}

/**
 * The two unsubscribe links of a newsletter message: the page a reader opens
 * (a button that posts), and the RFC 8058 one-click address of the
 * List-Unsubscribe header, which a mail provider posts to directly.
 */
export function unsubscribeLinks(token: string): UnsubscribeLinks {
  const query = `?token=${encodeURIComponent(token)}`;
  return { page: absoluteUrl(`/subscribe/unsubscribe${query}`), oneClick: absoluteUrl(`/api/subscribe/unsubscribe${query}`) };
}

/** What the confirmation page shows for a token, changing nothing (mail scanners open links). */
export async function confirmationState(subscribers: Pick<SubscriberStore, 'confirmationState'>, token: string) {
  return subscribers.confirmationState(hashToken(token), confirmationCutoff(Date.now()));
}
