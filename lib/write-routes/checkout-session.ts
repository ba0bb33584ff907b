import { createHash, randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import { absoluteUrl } from '../runtime/site';
import type { Product } from '../content';
import type { WriteContext, WriteResult } from './definition';
import { SEAT_HOLD_MINUTES } from '../products';
import type { Payments } from '../services/payments';

/** Seats are held this long while the buyer is on Stripe; Stripe's session expires a little earlier. */
export const HOLD_MS = SEAT_HOLD_MINUTES * 60 * 1000;
export const SESSION_MS = 31 * 60 * 1000;

export const notConfigured: WriteResult = {
  ok: false,
  problem: 'service-unavailable',
  detail: 'Payments are not configured on this site, so nothing can be bought right now.',
};

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
export function attemptKey(route: string, client: string, attempt: string | undefined, parts: (string | number)[]): string {
  const id = attempt
    ? createHash('sha256')
        .update(JSON.stringify([client, attempt, ...parts]))
        .digest('base64url')
        .slice(0, 32)
    : randomBytes(24).toString('base64url');
  return `${route}:${id}`;
}

export function lineItem(product: Product, quantity: number, description?: string): Stripe.Checkout.SessionCreateParams.LineItem {
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

/** Stripe did not answer (its SDK retried first): a 503 that says so and when to try again, not "not configured". */
export const paymentsUnavailable: WriteResult = {
  ok: false,
  problem: 'payments-unavailable',
  detail: 'The payment provider cannot be reached right now, so nothing was bought and nothing is held. Please try again in a minute.',
  headers: { 'Retry-After': '60' },
};

/**
 * A Checkout Session for a one-time payment. Stripe is asked to make an invoice of it
 * (`invoice_creation`), which it mails the buyer with the VAT the pricing page mentions.
 */
export async function createSession(payments: Payments, params: Stripe.Checkout.SessionCreateParams, key: string): Promise<WriteResult> {
  let session: Stripe.Checkout.Session;
  try {
    session = await payments.stripe.checkout.sessions.create({ ...params, invoice_creation: { enabled: true } }, { idempotencyKey: key });
  } catch (error) {
    if (error instanceof Error && (error as { type?: string }).type === 'StripeConnectionError') return paymentsUnavailable;
    throw error;
  }
  if (!session.url) throw new Error('Stripe returned a checkout session without a URL');
  return { ok: true, status: 200, body: { url: session.url, id: session.id }, redirect: session.url };
}

/** Where Stripe sends the buyer back: the success page with the session id, or the cancelled page naming the product. */
export function checkoutUrls(product: Product) {
  return {
    success_url: `${absoluteUrl('/checkout/success')}?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${absoluteUrl('/checkout/cancelled')}?product=${encodeURIComponent(product.slug)}`,
  };
}

export function wrongKind(slug: string, expected: string): WriteResult {
  return {
    ok: false,
    problem: 'invalid-input',
    detail: `No ${expected} has the slug "${slug}".`,
    errors: [{ path: 'product', message: `must be the slug of a ${expected}` }],
  };
}

/** The honeypot answer of the checkout forms: back to the pricing page, as if the buyer had left Stripe's page. */
export function backToPricing(): WriteResult {
  return { ok: true, status: 200, body: { url: '/pricing' }, redirect: '/pricing' };
}

/** A Checkout Session for one unit of a product (a bundle, the book, an offer), keyed by the attempt. */
export async function singleItemCheckout(product: Product, keyPrefix: string, context: WriteContext, attempt: string | undefined): Promise<WriteResult> {
  const { payments } = context.services;
  if (!payments) return notConfigured;
  return createSession(
    payments,
    { mode: 'payment', line_items: [lineItem(product, 1)], ...checkoutUrls(product), metadata: { product: product.slug, kind: product.kind } },
    attemptKey(keyPrefix, context.client, attempt, [product.slug]),
  );
}
