import { absoluteUrl } from '../config';
import type { WriteResult } from '../http/write-route';
import { confirmSubscriptionMail } from '../services/mail/templates';
import { mailWorker } from '../services/mail/worker';
import { store } from '../services/store';
import { hashToken, newToken } from '../services/tokens';
import type { FormInput } from './schemas';

export const SUBSCRIBE_RESULT_PAGE = '/subscribe/check-your-inbox';

/** The one answer to every subscription request, so nobody can learn whether an address is known. */
export function subscribeAccepted(): WriteResult {
  return {
    ok: true,
    status: 202,
    body: { status: 'pending', message: 'Check your inbox: a confirmation link is on its way, unless this address is already subscribed.' },
    redirect: SUBSCRIBE_RESULT_PAGE,
  };
}

export function confirmUrl(token: string): string {
  return absoluteUrl(`/subscribe/confirm?token=${encodeURIComponent(token)}`);
}

export function unsubscribeUrl(token: string): string {
  return absoluteUrl(`/subscribe/unsubscribe?token=${encodeURIComponent(token)}`);
}

/**
 * Double opt-in: a new, pending or unsubscribed address is stored pending with
 * a fresh confirmation token (kept hashed) and mailed the link; a confirmed one
 * is left alone and mailed nothing. Stored and queued before the answer.
 */
export async function subscribe(input: FormInput<'subscribe'>): Promise<WriteResult> {
  const email = input.email.toLowerCase();
  const confirm = newToken();
  const unsubscribe = newToken();
  await store().subscribe({
    email,
    name: input.name,
    confirmTokenHash: confirm.hash,
    unsubscribeToken: unsubscribe.token,
    now: Date.now(),
    mail: (previous, unsubscribeToken) =>
      previous === 'confirmed'
        ? undefined
        : confirmSubscriptionMail({ name: input.name, address: email }, { confirm: confirmUrl(confirm.token), unsubscribe: unsubscribeUrl(unsubscribeToken) }),
  });
  mailWorker().kick();
  return subscribeAccepted();
}

export async function confirmSubscription(token: string) {
  return store().confirmSubscriber(hashToken(token), Date.now(), () => undefined);
}

export async function unsubscribe(token: string) {
  return store().unsubscribe(token, Date.now());
}
