import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import { absoluteUrl } from '../config';
import { readBody, STRIPE_EVENT_BODY_LIMIT } from '../http/body';
import { problem } from '../http/problem';
import { jsonResponse } from '../http/responses';
import { cancellationDeadline, productBySlug, type TrainingProduct } from '../products';
import { bookingReceiptMail, orderReceiptMail } from '../services/mail/templates';
import { mailWorker } from '../services/mail/worker';
import { payments } from '../services/payments';
import { store } from '../services/store';
import type { Booking } from '../services/store/types';
import { newToken } from '../services/tokens';

export function bookingCancelUrl(id: string, token: string): string {
  return absoluteUrl(`/booking/cancel?booking=${encodeURIComponent(id)}&token=${encodeURIComponent(token)}`);
}

async function recordCompletedCheckout(event: Stripe.Event, session: Stripe.Checkout.Session): Promise<'recorded' | 'duplicate' | 'ignored'> {
  const slug = session.metadata?.product;
  const product = slug ? productBySlug(slug) : undefined;
  const email = session.customer_details?.email ?? session.customer_email;
  if (!product || !email || session.payment_status !== 'paid') return 'ignored';
  const now = Date.now();
  const amount = session.amount_total ?? 0;
  const currency = (session.currency ?? product.currency).toUpperCase();
  const order = { id: session.id, product: product.slug, kind: product.kind, amount, currency, email, createdAt: now };
  const to = { name: session.customer_details?.name ?? undefined, address: email };

  if (product.kind === 'training') {
    const training = product as TrainingProduct;
    const trainingSession = training.sessions.find((entry) => entry.id === session.metadata?.session);
    if (!trainingSession) return 'ignored';
    const token = newToken();
    const booking: Booking = {
      id: `bk_${randomBytes(12).toString('base64url')}`,
      tokenHash: token.hash,
      product: product.slug,
      session: trainingSession.id,
      seats: Number(session.metadata?.seats ?? 1),
      email,
      ...(to.name ? { name: to.name } : {}),
      paymentIntent: typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? ''),
      amount,
      currency,
      status: 'confirmed',
      createdAt: now,
    };
    const mail = bookingReceiptMail(to, {
      id: booking.id,
      title: product.title,
      session: trainingSession.id,
      start: trainingSession.start,
      seats: booking.seats,
      amount,
      currency,
      cancelUrl: bookingCancelUrl(booking.id, token.token),
      deadline: new Date(cancellationDeadline(trainingSession.start)).toISOString(),
    });
    return store().recordPayment({ eventId: event.id, order, booking, holdId: session.metadata?.hold, mails: [mail] });
  }
  return store().recordPayment({ eventId: event.id, order, mails: [orderReceiptMail(to, { id: session.id, title: product.title, amount, currency })] });
}

/**
 * Stripe's webhook: the signature is checked on the raw body with the SDK;
 * a paid checkout is recorded once per event id (a replay changes nothing);
 * an expired one gives its held seats back.
 */
export async function handleStripeWebhook(request: Request): Promise<Response> {
  const configured = payments();
  if (!configured?.webhookSecret) return problem('service-unavailable', 'Payments are not configured on this site.', { cache: 'write' });
  const body = await readBody(request, STRIPE_EVENT_BODY_LIMIT);
  if (body === 'too-large') return problem('payload-too-large', `The event is larger than ${STRIPE_EVENT_BODY_LIMIT / 1024 / 1024} MiB.`, { cache: 'write' });
  // The signature covers the bytes as sent, so they are handed over undecoded.
  const raw = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const signature = request.headers.get('stripe-signature');
  let event: Stripe.Event;
  try {
    if (!signature) throw new Error('missing Stripe-Signature');
    event = configured.stripe.webhooks.constructEvent(raw, signature, configured.webhookSecret);
  } catch {
    return problem('invalid-body', 'The Stripe signature does not match this body.', { cache: 'write' });
  }
  let outcome: string = 'ignored';
  if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded') {
    outcome = await recordCompletedCheckout(event, event.data.object);
    if (outcome === 'recorded') mailWorker().kick();
  } else if (event.type === 'checkout.session.expired') {
    const hold = event.data.object.metadata?.hold;
    if (hold) await store().releaseHold(hold);
    outcome = 'released';
  }
  return jsonResponse({ received: true, outcome }, { cache: 'write' });
}
