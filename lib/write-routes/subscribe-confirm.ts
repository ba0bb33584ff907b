import { z } from 'zod';
import { CONFIRMATION_DAYS, confirmationCutoff } from '../subscribers/links';
import { describeError } from '../log';
import { welcomeMailTo } from '../newsletter';
import { hashToken, newToken } from '../services/tokens';
import { linkToken } from './fields';
import { defineWriteRoute, problemStatus, type WriteContext, type WriteResult } from './definition';
import { writeRouteAddresses } from '../routes/manifest';

export const CONFIRMED_PAGE = '/subscribe/confirmed';

const schema = z.strictObject({ token: linkToken });

const responses = {
  '404': problemStatus('The token is unknown or already used.'),
  '410': problemStatus(`The token has expired (confirmation links work for ${CONFIRMATION_DAYS} days); nothing changed: subscribe again.`),
};

async function confirmSubscription(input: z.output<typeof schema>, { services }: WriteContext): Promise<WriteResult> {
  const now = Date.now();
  const outcome = await services.store.subscribers.confirm(hashToken(input.token), now, confirmationCutoff(now));
  if (!outcome)
    return { ok: false, problem: 'not-found', detail: 'This link does not work: it was already used, or it is not a confirmation link of this site.' };
  if (outcome.state === 'expired') {
    return {
      ok: false,
      problem: 'gone',
      detail: `This confirmation link has expired: links work for ${CONFIRMATION_DAYS} days. Subscribe again to get a new one.`,
    };
  }
  // The author's welcome mail, when there is one: queued after the confirmation, with an unsubscribe
  // token of its own. The confirmation stands whatever happens to it (a crash or a failure in between
  // loses the welcome, never the subscription).
  try {
    const unsubscribe = newToken();
    const { email } = outcome.subscriber;
    const welcome = await welcomeMailTo(email, unsubscribe.token);
    if (welcome && (await services.store.subscribers.welcome({ email, unsubscribeTokenHash: unsubscribe.hash, now, mail: welcome })))
      services.mail.sendQueued();
  } catch (error) {
    console.warn(`newsletter: the welcome mail was not queued (${describeError(error)})`);
  }
  return { ok: true, status: 200, body: { status: 'confirmed', message: 'Your subscription is confirmed.' }, redirect: CONFIRMED_PAGE };
}

/** The newsletter's confirmation link posts here: a person confirms once, so the limit is that of a form. */
export const subscribeConfirmRoute = defineWriteRoute({
  route: writeRouteAddresses.subscribeConfirm,
  handle: { schema, action: confirmSubscription },
  docs: { summary: 'Confirm a newsletter subscription with the token from the confirmation email (the button on /subscribe/confirm).', responses },
});
