import { randomBytes } from 'node:crypto';
import type Stripe from 'stripe';
import { readBody } from '../http/body';
import { STRIPE_EVENT_BODY_LIMIT } from '../routes/manifest';
import { describeError } from '../log';
import { problem } from '../http/problem';
import { jsonResponse } from '../http/responses';
import { cancellationDeadline, moveDeadline, productBySlug, type TrainingProduct } from '../products';
import { bookingDetails, bookingManageUrl, reminderTime } from '../bookings/details';
import { formatMoment } from '../products/when';
import { bookingReceiptMail, orderReceiptMail, sessionFullRefundMail } from '../services/mail/templates';
import type { Services } from '../runtime';
import type { Booking } from '../services/store/types';
import { newToken } from '../services/tokens';
import { clock } from '../runtime/site';
import type { Settings } from '../settings';
import { downloadLinks } from '../downloads/grant';

/** What the webhook uses: the store, Stripe, and the mail it queues sent. */
type WebhookServices = Pick<Services, 'store' | 'payments' | 'mail'>;

/** The settings groups a payment's record reads: when a booking's reminder goes, and how download links are signed. */
type WebhookSettings = Pick<Settings, 'bookings' | 'downloads'>;

/**
 * A payment for a session that filled up meanwhile (its hold lapsed and the
 * seats went to others) is refunded in full (one refund per checkout session,
 * by its idempotency key) and the buyer is told. If Stripe fails, the error
 * makes the webhook answer 5xx, so Stripe sends the event again and the refund
 * is tried again.
 */
async function refundOversold(
  services: WebhookServices,
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
  mail: () => ReturnType<typeof sessionFullRefundMail>,
): Promise<'refunded' | 'duplicate'> {
  const stripe = services.payments?.stripe;
  const paymentIntent = typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
  if (!stripe || !paymentIntent) throw new Error(`checkout ${session.id} paid for a full session but cannot be refunded: no payment intent`);
  await stripe.refunds.create(
    { payment_intent: paymentIntent, reason: 'requested_by_customer', metadata: { checkout_session: session.id, cause: 'session full' } },
    { idempotencyKey: `refund:${session.id}` },
  );
  return (await services.store.bookings.recordRefund({ eventId: event.id, now: Date.now(), mails: [mail()] })) === 'recorded' ? 'refunded' : 'duplicate';
}

async function recordCompletedCheckout(
  services: WebhookServices,
  settings: WebhookSettings,
  event: Stripe.Event,
  session: Stripe.Checkout.Session,
): Promise<'recorded' | 'duplicate' | 'refunded' | 'ignored'> {
  const slug = session.metadata?.product;
  const product = slug ? productBySlug(slug) : undefined;
  const email = session.customer_details?.email ?? session.customer_email;
  if (!product || !email || session.payment_status !== 'paid') return 'ignored';
  const now = Date.now();
  const amount = session.amount_total ?? 0;
  const currency = (session.currency ?? product.currency).toUpperCase();
  const paymentIntent = typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? '');
  const order = {
    id: session.id,
    product: product.slug,
    kind: product.kind,
    amount,
    currency,
    email,
    createdAt: now,
    ...(paymentIntent ? { paymentIntent } : {}),
  };
  const to = { name: session.customer_details?.name ?? undefined, address: email };

  if (product.kind === 'training') {
    const training = product as TrainingProduct;
    const trainingSession = training.sessions.find((entry) => entry.id === session.metadata?.session);
    if (!trainingSession) return 'ignored';
    const token = newToken();
    const remindAt = reminderTime(trainingSession, clock(), settings.bookings.reminderLeadMs);
    const cancelUntil = cancellationDeadline(trainingSession);
    const booking: Booking = {
      id: `bk_${randomBytes(12).toString('base64url')}`,
      tokenHash: token.hash,
      product: product.slug,
      session: trainingSession.id,
      seats: Number(session.metadata?.seats ?? 1),
      email,
      ...(to.name ? { name: to.name } : {}),
      paymentIntent,
      amount,
      currency,
      status: 'confirmed',
      createdAt: now,
      cancelUntil,
      ...(remindAt !== undefined ? { remindAt } : {}),
    };
    const manageUrl = bookingManageUrl(booking.id, token.token);
    // What the receipt and, if the session filled meanwhile, the refund mail both say.
    const seatsBought = {
      title: product.title,
      start: formatMoment(Date.parse(trainingSession.meetings[0]!.start)),
      seats: booking.seats,
      amount,
      currency,
    };
    const mail = bookingReceiptMail(to, {
      ...bookingDetails(booking, training, trainingSession, { sequence: 0, now: clock(), manageUrl }),
      amount,
      currency,
      manageUrl,
      cancelUntil,
      moveUntil: moveDeadline(trainingSession),
    });
    const outcome = await services.store.bookings.recordPayment({
      eventId: event.id,
      order: { ...order, session: booking.session, seats: booking.seats },
      booking,
      capacity: trainingSession.seats,
      holdId: session.metadata?.hold,
      mails: [mail],
    });
    if (outcome !== 'full') return outcome;
    return refundOversold(services, event, session, () => sessionFullRefundMail(to, seatsBought));
  }
  const outcome = await services.store.bookings.recordPayment({
    eventId: event.id,
    order,
    mails: [
      orderReceiptMail(to, {
        id: session.id,
        title: product.title,
        amount,
        currency,
        downloads: downloadLinks(product, session.id, clock(), settings.downloads),
      }),
    ],
  });
  // Without a capacity (only a training booking has one) a payment is never full.
  return outcome === 'full' ? 'ignored' : outcome;
}

/**
 * Stripe's webhook: the signature is checked on the raw body with the SDK;
 * a paid checkout is recorded once per event id (a replay changes nothing),
 * and a paid training seat is checked against the session's capacity again
 * (a full session's payment is refunded); an expired checkout gives its held
 * seats back. The route hands it the process's services and settings.
 */
export async function handleStripeWebhook(request: Request, services: WebhookServices, settings: WebhookSettings): Promise<Response> {
  const configured = services.payments;
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
  try {
    if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.async_payment_succeeded') {
      outcome = await recordCompletedCheckout(services, settings, event, event.data.object);
      if (outcome === 'recorded' || outcome === 'refunded') services.mail.sendQueued();
    } else if (event.type === 'charge.refunded') {
      // A full refund ends the order's downloads; a partial one leaves them.
      const charge = event.data.object;
      const paymentIntent = typeof charge.payment_intent === 'string' ? charge.payment_intent : charge.payment_intent?.id;
      outcome = charge.refunded && paymentIntent && (await services.store.orders.refund(paymentIntent, Date.now())) ? 'refunded' : 'ignored';
    } else if (event.type === 'checkout.session.expired') {
      const hold = event.data.object.metadata?.hold;
      if (hold) await services.store.bookings.releaseHold(hold);
      outcome = 'released';
    }
  } catch (error) {
    // Stripe sends an event again until it is answered 2xx; everything above is safe to repeat.
    console.error(`/api/payments/webhook: event ${event.id} (${event.type}): ${describeError(error)}`);
    return problem('service-unavailable', 'The event could not be handled right now; send it again later.', {
      cache: 'write',
      headers: { 'Retry-After': '60' },
    });
  }
  return jsonResponse({ received: true, outcome }, { cache: 'write' });
}
