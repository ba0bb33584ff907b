import type { WriteResult } from '../http/write-route';
import { cancellationDeadline, CANCELLATION_NOTICE_DAYS, productBySlug, type TrainingProduct } from '../products';
import { bookingCancelledMail } from '../services/mail/templates';
import { mailWorker } from '../services/mail/worker';
import { payments } from '../services/payments';
import { store } from '../services/store';
import { hashToken, sameSecret } from '../services/tokens';
import type { FormInput } from './schemas';

export const BOOKING_CANCELLED_PAGE = '/booking/cancelled';

const notFound: WriteResult = { ok: false, problem: 'not-found', detail: 'No booking matches this id and token.' };

/**
 * Cancels a training booking with its emailed token (compared in constant
 * time; a wrong token and an unknown booking get the same 404), inside the
 * cancellation policy: refund through Stripe, seats freed, confirmation mailed.
 */
export async function cancelBooking(input: FormInput<'bookingCancel'>): Promise<WriteResult> {
  const booking = await store().booking(input.booking);
  const expected = booking?.tokenHash ?? hashToken('no booking has this token');
  if (!sameSecret(hashToken(input.token), expected) || !booking) return notFound;
  if (booking.status === 'cancelled') return { ok: false, problem: 'conflict', detail: 'This booking is already cancelled.' };
  const product = productBySlug(booking.product) as TrainingProduct | undefined;
  const session = product?.sessions.find((entry) => entry.id === booking.session);
  const deadline = session ? cancellationDeadline(session.start) : 0;
  if (Date.now() > deadline) {
    return { ok: false, problem: 'conflict', detail: `Free cancellation ends ${CANCELLATION_NOTICE_DAYS} days before the session starts${session ? ` (${new Date(deadline).toISOString()})` : ''}; this booking can no longer be cancelled online.` };
  }
  const stripe = payments()?.stripe;
  if (!stripe) return { ok: false, problem: 'service-unavailable', detail: 'Payments are not configured on this site, so no refund can be made right now.' };
  const refund = await stripe.refunds.create({ payment_intent: booking.paymentIntent, metadata: { booking: booking.id } }, { idempotencyKey: `refund:${booking.id}` });
  const cancelled = await store().cancelBooking(booking.id, Date.now(), [
    bookingCancelledMail({ name: booking.name, address: booking.email }, { id: booking.id, title: product?.title ?? booking.product, session: booking.session, amount: booking.amount, currency: booking.currency }),
  ]);
  if (!cancelled) return { ok: false, problem: 'conflict', detail: 'This booking is already cancelled.' };
  mailWorker().kick();
  return { ok: true, status: 200, body: { status: 'cancelled', booking: booking.id, refund: refund.id }, redirect: BOOKING_CANCELLED_PAGE };
}
