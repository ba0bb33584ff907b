import { z } from 'zod';
import { MAX_HELD_SEATS_PER_CLIENT, productBySlug, SEAT_HOLD_MINUTES, sessionStart, type TrainingProduct } from '../products';
import { formatMoment } from '../products/when';
import type { Hold } from '../services/store';
import { attemptKey, backToPricing, checkoutUrls, createSession, HOLD_MS, lineItem, notConfigured, SESSION_MS, wrongKind } from './checkout-session';
import { attempt, honeypot, required, slug } from './fields';
import { defineWriteRoute, problemStatus, type WriteContext, type WriteResult } from './definition';
import { writeRouteAddresses } from '../routes/manifest';

const schema = z.strictObject({
  product: slug('training'),
  session: slug('training session'),
  seats: z.coerce
    .number<string | number>(required('a number'))
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_HELD_SEATS_PER_CLIENT, `must be at most ${MAX_HELD_SEATS_PER_CLIENT}`)
    .default(1)
    .describe(
      `Seats to book, 1 to ${MAX_HELD_SEATS_PER_CLIENT}: one address may hold at most ${MAX_HELD_SEATS_PER_CLIENT} seats at once in checkouts not yet paid, across every session.`,
    ),
  attempt,
  website: honeypot,
});

const responses = {
  '409': problemStatus(
    `The session has not enough free seats, or this address already holds ${MAX_HELD_SEATS_PER_CLIENT} seats in checkouts not yet paid (\`detail\` says which); nothing is held.`,
  ),
  '410': problemStatus('The session has already started.'),
};

function seatsText(seats: number): string {
  return `${seats} seat${seats === 1 ? '' : 's'}`;
}

/**
 * Seats in one session of the training, held while the buyer pays: 409 when
 * the session has not enough free seats, or when this client would hold more
 * than MAX_HELD_SEATS_PER_CLIENT seats across every session. A repeated
 * attempt holds its seats once and gets the same Stripe session.
 */
async function trainingCheckout(input: z.output<typeof schema>, context: WriteContext): Promise<WriteResult> {
  const product = productBySlug(input.product);
  if (!product || product.kind !== 'training') return wrongKind(input.product, 'training');
  const training = product as TrainingProduct;
  const session = training.sessions.find((entry) => entry.id === input.session);
  if (!session)
    return {
      ok: false,
      problem: 'invalid-input',
      detail: `The training has no session "${input.session}".`,
      errors: [{ path: 'session', message: 'must be one of the sessions on the pricing page' }],
    };
  if (sessionStart(session) <= Date.now()) return { ok: false, problem: 'gone', detail: `The session ${session.id} has already started.` };
  const { store, payments } = context.services;
  if (!payments) return notConfigured;
  const now = Date.now();
  const attempt = attemptKey('training', context.client, input.attempt, [product.slug, session.id, input.seats]);
  const request: Hold = {
    id: attempt.slice(attempt.indexOf(':') + 1),
    client: context.client,
    product: product.slug,
    session: session.id,
    seats: input.seats,
    expiresAt: now + HOLD_MS,
  };
  const outcome = await store.bookings.holdSeats(request, { capacity: session.seats, perClient: MAX_HELD_SEATS_PER_CLIENT }, now);
  if ('refused' in outcome) {
    if (outcome.refused === 'client-limit') {
      const held = await store.bookings.seatsHeldBy(context.client, now);
      return {
        ok: false,
        problem: 'conflict',
        detail: `Your address already holds ${seatsText(held)} in checkouts that are not paid yet, and at most ${MAX_HELD_SEATS_PER_CLIENT} can be held at once; ${input.seats} more were asked for. Pay for those, or ask again once they lapse (${SEAT_HOLD_MINUTES} minutes after they were started).`,
      };
    }
    const free = Math.max(0, session.seats - (await store.bookings.seatsTaken(product.slug, session.id, now)));
    return {
      ok: false,
      problem: 'conflict',
      detail: `The session ${session.id} has ${free} free seat${free === 1 ? '' : 's'}; ${input.seats} were asked for.`,
    };
  }
  const hold = outcome.held;
  try {
    const result = await createSession(
      payments,
      {
        mode: 'payment',
        line_items: [lineItem(product, input.seats, `${product.title}, session ${session.id} (${formatMoment(sessionStart(session))})`)],
        ...checkoutUrls(product),
        // From the hold, so a repeated attempt sends Stripe the same parameters under the same key.
        expires_at: Math.floor((hold.expiresAt - HOLD_MS + SESSION_MS) / 1000),
        metadata: { product: product.slug, kind: 'training', session: session.id, seats: String(input.seats), hold: hold.id },
        payment_intent_data: { metadata: { product: product.slug, session: session.id } },
      },
      // One key per attempt and hold: a hold made again after its first one lapsed gets a session of its own.
      `${attempt}:${hold.expiresAt}`,
    );
    if (!result.ok && outcome.fresh) await store.bookings.releaseHold(hold.id);
    return result;
  } catch (error) {
    // A repeated attempt leaves the hold to the session its first attempt made.
    if (outcome.fresh) await store.bookings.releaseHold(hold.id);
    throw error;
  }
}

export const trainingCheckoutRoute = defineWriteRoute({
  route: writeRouteAddresses.trainingCheckout,
  handle: { schema, honeypot: backToPricing, action: trainingCheckout },
  docs: { summary: 'Start a Stripe Checkout for seats in a training session.', responses },
});
