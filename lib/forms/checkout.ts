import { createHash, randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import { absoluteUrl } from '../config';
import type { Product } from '../content';
import type { WriteContext, WriteResult } from '../http/write-route';
import { MAX_HELD_SEATS_PER_CLIENT, productBySlug, SEAT_HOLD_MINUTES, type OfferProduct, type TrainingProduct } from '../products';
import { payments, store, type Hold } from '../services';
import type { FormInput } from './schemas';

/** Seats are held this long while the buyer is on Stripe; Stripe's session expires a little earlier. */
const HOLD_MS = SEAT_HOLD_MINUTES * 60 * 1000;
const SESSION_MS = 31 * 60 * 1000;

const notConfigured: WriteResult = { ok: false, problem: 'service-unavailable', detail: 'Payments are not configured on this site, so nothing can be bought right now.' };

/**
 * The Stripe idempotency key of one checkout attempt. The form carries a
 * random attempt id made in the browser per page view, so a double submit is
 * one session and two people, even behind one address, are two. The key also
 * holds the client and the fields: an attempt id sent from another address
 * never reaches someone else's session, and the same form sent again with
 * other fields gets a session of its own instead of Stripe refusing a key
 * reused with other parameters. Without an attempt id, every post is an
 * attempt of its own.
 */
function attemptKey(route: string, client: string, attempt: string | undefined, parts: (string | number)[]): string {
  const id = attempt ? createHash('sha256').update(JSON.stringify([client, attempt, ...parts])).digest('base64url').slice(0, 32) : randomBytes(24).toString('base64url');
  return `${route}:${id}`;
}

function lineItem(product: Product, quantity: number, description?: string): Stripe.Checkout.SessionCreateParams.LineItem {
  return {
    quantity,
    price_data: {
      currency: product.currency.toLowerCase(),
      // Server-side price from content/products, never from the request.
      unit_amount: product.price,
      product_data: { name: product.title, description: description ?? product.description, metadata: { slug: product.slug } },
    },
  };
}

async function createSession(params: Stripe.Checkout.SessionCreateParams, key: string): Promise<WriteResult> {
  const stripe = payments()?.stripe;
  if (!stripe) return notConfigured;
  const session = await stripe.checkout.sessions.create(params, { idempotencyKey: key });
  if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
  return { ok: true, status: 200, body: { url: session.url, id: session.id }, redirect: session.url };
}

function urls(product: Product) {
  return {
    success_url: `${absoluteUrl('/checkout/success')}?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${absoluteUrl('/checkout/cancelled')}?product=${encodeURIComponent(product.slug)}`,
  };
}

function wrongKind(slug: string, expected: string): WriteResult {
  return { ok: false, problem: 'invalid-input', detail: `No ${expected} has the slug "${slug}".`, errors: [{ path: 'product', message: `must be the slug of a ${expected}` }] };
}

/** A digital bundle or the book. */
export async function checkout(input: FormInput<'checkout'>, context: WriteContext): Promise<WriteResult> {
  const product = productBySlug(input.product);
  if (!product || (product.kind !== 'bundle' && product.kind !== 'book')) return wrongKind(input.product, 'bundle or book');
  if (!payments()) return notConfigured;
  return createSession(
    { mode: 'payment', line_items: [lineItem(product, 1)], ...urls(product), metadata: { product: product.slug, kind: product.kind } },
    attemptKey('checkout', context.client, input.attempt, [product.slug]),
  );
}

function seatsText(seats: number): string {
  return `${seats} seat${seats === 1 ? '' : 's'}`;
}

/**
 * Seats in one session of the training, held while the buyer pays: 409 when
 * the session has not enough free seats, or when this client would hold more
 * than MAX_HELD_SEATS_PER_CLIENT seats across every session. A repeated
 * attempt holds its seats once and gets the same Stripe session.
 */
export async function trainingCheckout(input: FormInput<'trainingCheckout'>, context: WriteContext): Promise<WriteResult> {
  const product = productBySlug(input.product);
  if (!product || product.kind !== 'training') return wrongKind(input.product, 'training');
  const training = product as TrainingProduct;
  const session = training.sessions.find((entry) => entry.id === input.session);
  if (!session) return { ok: false, problem: 'invalid-input', detail: `The training has no session "${input.session}".`, errors: [{ path: 'session', message: 'must be one of the sessions on the pricing page' }] };
  if (Date.parse(session.start) <= Date.now()) return { ok: false, problem: 'gone', detail: `The session ${session.id} has already started.` };
  if (!payments()) return notConfigured;
  const now = Date.now();
  const attempt = attemptKey('training', context.client, input.attempt, [product.slug, session.id, input.seats]);
  const request: Hold = { id: attempt.slice(attempt.indexOf(':') + 1), client: context.client, product: product.slug, session: session.id, seats: input.seats, expiresAt: now + HOLD_MS };
  const outcome = await store().bookings.holdSeats(request, { capacity: session.seats, perClient: MAX_HELD_SEATS_PER_CLIENT }, now);
  if ('refused' in outcome) {
    if (outcome.refused === 'client-limit') {
      const held = await store().bookings.seatsHeldBy(context.client, now);
      return {
        ok: false,
        problem: 'conflict',
        detail: `Your address already holds ${seatsText(held)} in checkouts that are not paid yet, and at most ${MAX_HELD_SEATS_PER_CLIENT} can be held at once; ${input.seats} more were asked for. Pay for those, or ask again once they lapse (${SEAT_HOLD_MINUTES} minutes after they were started).`,
      };
    }
    const free = Math.max(0, session.seats - (await store().bookings.seatsTaken(product.slug, session.id, now)));
    return { ok: false, problem: 'conflict', detail: `The session ${session.id} has ${free} free seat${free === 1 ? '' : 's'}; ${input.seats} were asked for.` };
  }
  const hold = outcome.held;
  try {
    return await createSession(
      {
        mode: 'payment',
        line_items: [lineItem(product, input.seats, `${product.title}, session ${session.id} (${session.start})`)],
        ...urls(product),
        // From the hold, so a repeated attempt sends Stripe the same parameters under the same key.
        expires_at: Math.floor((hold.expiresAt - HOLD_MS + SESSION_MS) / 1000),
        metadata: { product: product.slug, kind: 'training', session: session.id, seats: String(input.seats), hold: hold.id },
        payment_intent_data: { metadata: { product: product.slug, session: session.id } },
      },
      // One key per attempt and hold: a hold made again after its first one lapsed gets a session of its own.
      `${attempt}:${hold.expiresAt}`,
    );
  } catch (error) {
    // A repeated attempt leaves the hold to the session its first attempt made.
    if (outcome.fresh) await store().bookings.releaseHold(hold.id);
    throw error;
  }
}

/** A special offer, only inside its window: 410 Gone with the window otherwise. */
export async function specialOfferCheckout(input: FormInput<'specialOfferCheckout'>, context: WriteContext): Promise<WriteResult> {
  const product = productBySlug(input.product);
  if (!product || product.kind !== 'offer') return wrongKind(input.product, 'special offer');
  const offer = product as OfferProduct;
  const now = Date.now();
  if (now < Date.parse(offer.starts) || now >= Date.parse(offer.ends)) {
    const when = now < Date.parse(offer.starts) ? 'has not started yet' : 'has ended';
    return { ok: false, problem: 'gone', detail: `The offer "${offer.title}" ${when}: it is available from ${offer.starts} until ${offer.ends}.` };
  }
  if (!payments()) return notConfigured;
  return createSession(
    { mode: 'payment', line_items: [lineItem(product, 1)], ...urls(product), metadata: { product: product.slug, kind: 'offer' } },
    attemptKey('offer', context.client, input.attempt, [product.slug]),
  );
}
