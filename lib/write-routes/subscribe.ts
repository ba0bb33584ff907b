import { z } from 'zod';
import { CONFIRMATION_RESEND, confirmPageUrl, unsubscribeLinks } from '../subscribers/links';
import { confirmSubscriptionMail } from '../services/mail/templates';
import { newToken } from '../services/tokens';
import { email, honeypot, line } from './fields';
import { defineWriteRoute, type WriteContext, type WriteResult } from './definition';
import { writeRouteAddresses } from '../routes/manifest';

export const SUBSCRIBE_RESULT_PAGE = '/subscribe/check-your-inbox';

/** The one answer to every subscription request, so nobody can learn whether an address is known. */
function subscribeAccepted(): WriteResult {
  return {
    ok: true,
    status: 202,
    body: { status: 'pending', message: 'Check your inbox: a confirmation link is on its way, unless this address is already subscribed.' },
    redirect: SUBSCRIBE_RESULT_PAGE,
  };
}

const schema = z.strictObject({ email, name: line(100).optional(), website: honeypot });

/**
 * Double opt-in: a new, pending or unsubscribed address is stored pending with
 * a fresh confirmation token and mailed the link, at most as often as
 * CONFIRMATION_RESEND allows whoever asks (a pending address asked again
 * sooner keeps the link it has); a confirmed one is left alone and mailed
 * nothing. The typed name is kept for the owner's list and never written into
 * a mail: anyone can type anyone's address. Every token is kept hashed; the
 * mail carries them as they are. Stored and queued before the answer, which is
 * the same whatever happened.
 */
async function subscribe(input: z.output<typeof schema>, { services }: WriteContext): Promise<WriteResult> {
  const address = input.email.toLowerCase();
  const confirm = newToken();
  const unsubscribe = newToken();
  const mailed = await services.store.subscribers.subscribe({
    email: address,
    name: input.name,
    confirmTokenHash: confirm.hash,
    unsubscribeTokenHash: unsubscribe.hash,
    now: Date.now(),
    resend: CONFIRMATION_RESEND,
    mail: confirmSubscriptionMail({ address }, { confirm: confirmPageUrl(confirm.token), unsubscribe: unsubscribeLinks(unsubscribe.token) }),
  });
  if (mailed) services.mail.sendQueued();
  return subscribeAccepted();
}

export const subscribeRoute = defineWriteRoute({
  route: writeRouteAddresses.subscribe,
  handle: { schema, honeypot: subscribeAccepted, action: subscribe },
  docs: { summary: 'Subscribe to the newsletter (double opt-in: a confirmation link is mailed).' },
});
