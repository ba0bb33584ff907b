import { absoluteUrl } from '../config';
import type { WriteResult } from '../http/write-route';
import { confirmSubscriptionMail, type UnsubscribeLinks } from '../services/mail/templates';
import { sendQueuedMail, store } from '../services';
import { hashToken, newToken } from '../services/tokens';
import type { FormInput } from './schemas';

export const SUBSCRIBE_RESULT_PAGE = '/subscribe/check-your-inbox';
export const CONFIRMED_PAGE = '/subscribe/confirmed';
export const UNSUBSCRIBED_PAGE = '/subscribe/unsubscribed';
/** A confirmation link works for this long; after it, subscribing again sends a new one. */
export const CONFIRMATION_DAYS = 7;
const CONFIRMATION_MS = CONFIRMATION_DAYS * 24 * 60 * 60 * 1000;

/** The one answer to every subscription request, so nobody can learn whether an address is known. */
export function subscribeAccepted(): WriteResult {
  return {
    ok: true,
    status: 202,
    body: { status: 'pending', message: 'Check your inbox: a confirmation link is on its way, unless this address is already subscribed.' },
    redirect: SUBSCRIBE_RESULT_PAGE,
  };
}

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

/**
 * Double opt-in: a new, pending or unsubscribed address is stored pending with
 * a fresh confirmation token and mailed the link; a confirmed one is left
 * alone and mailed nothing. Every token is kept hashed; the mail carries them
 * as they are. Stored and queued before the answer.
 */
export async function subscribe(input: FormInput<'subscribe'>): Promise<WriteResult> {
  const email = input.email.toLowerCase();
  const confirm = newToken();
  const unsubscribe = newToken();
  await store().subscribers.subscribe({
    email,
    name: input.name,
    confirmTokenHash: confirm.hash,
    unsubscribeTokenHash: unsubscribe.hash,
    now: Date.now(),
    mail: confirmSubscriptionMail({ name: input.name, address: email }, { confirm: confirmPageUrl(confirm.token), unsubscribe: unsubscribeLinks(unsubscribe.token) }),
  });
  sendQueuedMail();
  return subscribeAccepted();
}

const confirmationCutoff = (now: number) => now - CONFIRMATION_MS;

/** What the confirmation page shows for a token, changing nothing (mail scanners open links). */
export async function confirmationState(token: string) {
  return store().subscribers.confirmationState(hashToken(token), confirmationCutoff(Date.now()));
}

const linkNotWorking = 'This link does not work: it was already used, or it is not a confirmation link of this site.';

export async function confirmSubscription(input: FormInput<'subscribeConfirm'>): Promise<WriteResult> {
  const now = Date.now();
  const outcome = await store().subscribers.confirm(hashToken(input.token), now, confirmationCutoff(now));
  if (!outcome) return { ok: false, problem: 'not-found', detail: linkNotWorking };
  if (outcome.state === 'expired') {
    return { ok: false, problem: 'gone', detail: `This confirmation link has expired: links work for ${CONFIRMATION_DAYS} days. Subscribe again to get a new one.` };
  }
  return { ok: true, status: 200, body: { status: 'confirmed', message: 'Your subscription is confirmed.' }, redirect: CONFIRMED_PAGE };
}

/**
 * Unsubscribes the holder of the token (in the body, or in the query as the
 * List-Unsubscribe address carries it). A one-click post (RFC 8058) is
 * answered directly, never redirected; the page's button lands on a result page.
 */
export async function unsubscribe(input: FormInput<'unsubscribe'>): Promise<WriteResult> {
  if (!input.token) return { ok: false, problem: 'invalid-input', detail: 'Check token.', errors: [{ path: 'token', message: 'is required' }] };
  const subscriber = await store().subscribers.unsubscribe(hashToken(input.token), Date.now());
  if (!subscriber) return { ok: false, problem: 'not-found', detail: 'This link does not work: it is not an unsubscribe link of this site.' };
  const body = { status: 'unsubscribed', message: 'You are unsubscribed: no more email will be sent to this address.' };
  return input['List-Unsubscribe'] ? { ok: true, status: 200, body } : { ok: true, status: 200, body, redirect: UNSUBSCRIBED_PAGE };
}
