import type Stripe from 'stripe';
import { z } from 'zod';
import { describeError } from '../log';
import { CANCELLATION_NOTICE_DAYS, productBySlug, type TrainingProduct } from '../products';
import { bookingCancelledMail } from '../services/mail/templates';
import { bookingDetails, freeCancellationEnds } from '../bookings/details';
import { clock } from '../runtime/site';
import { formatMoment, sessionDays } from '../products/when';
import type { Booking } from '../services/store';
import { hashToken, sameSecret } from '../services/tokens';
import { required } from './fields';
import { defineWriteRoute, problemStatus, type WriteContext, type WriteResult } from './definition';
import { writeRouteAddresses } from '../routes/manifest';

const BOOKING_CANCELLED_PAGE = '/booking/cancelled';

const schema = z.strictObject({
  booking: z.string(required('text')).regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be a booking id'),
  token: z.string(required('text')).regex(/^[A-Za-z0-9_-]{16,128}$/, 'must be the token from the booking email'),
  confirm: z
    .literal('yes', { error: (issue) => (issue.input === undefined ? 'is required: confirm the cancellation on the booking page' : 'must be "yes"') })
    .describe('"yes": the buyer confirmed the cancellation and its refund (the confirmation step of the booking page sends it).'),
});

const responses = {
  '404': problemStatus('No booking matches this id and token (the same answer for both).'),
  '409': problemStatus('Outside the cancellation policy, or already cancelled.'),
  '503': problemStatus(
    'Payments are not configured, or the request could not be stored (nothing was kept); or, as `cancellation-pending`, the cancellation is recorded but its refund is not confirmed yet: send the same request again after Retry-After to finish it (the refund has one idempotency key per booking, so it is never made twice).',
    { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
  ),
};

const notFound: WriteResult = { ok: false, problem: 'not-found', detail: 'No booking matches this id and token.' };
const alreadyCancelled: WriteResult = { ok: false, problem: 'conflict', detail: 'This booking is already cancelled.' };

/** A cancellation begun but not finished: the reader is told so, and that sending the form again finishes it. */
function pending(detail: string): WriteResult {
  return {
    ok: false,
    problem: 'cancellation-pending',
    detail: `${detail} Send this form again in a minute to finish it: it completes the same refund, never a second one.`,
    headers: { 'Retry-After': '60' },
  };
}

/**
 * Cancels a training booking with its emailed token (compared in constant
 * time; a wrong token and an unknown booking get the same 404), inside the
 * cancellation policy, once the buyer confirmed it (`confirm`: the booking page's confirmation
 * step sends it). The policy's deadline is fixed when the booking is made and kept by every move
 * (lib/bookings/details.ts), so moving to a later session never reopens a refund. In three steps, so that no failure loses money or
 * tells the reader something untrue: the intent is recorded (`cancelling`),
 * the refund is asked of Stripe under one idempotency key per booking, then
 * the booking is cancelled (seats freed, confirmation mailed). A booking left
 * `cancelling` by a failure is finished by the next submission, whatever the
 * date: its cancellation was asked for in time.
 */
async function cancelBooking(input: z.output<typeof schema>, { services }: WriteContext): Promise<WriteResult> {
  const booking = await services.store.bookings.find(input.booking);
  const expected = booking?.tokenHash ?? hashToken('no booking has this token');
  if (!sameSecret(hashToken(input.token), expected) || !booking) return notFound;
  if (booking.status === 'cancelled') return alreadyCancelled;
  const product = productBySlug(booking.product) as TrainingProduct | undefined;
  const session = product?.sessions.find((entry) => entry.id === booking.session);
  // Fixed when booked: a move to a later session keeps it, so it never reopens a refund.
  const deadline = freeCancellationEnds(booking, session);
  if (booking.status === 'confirmed' && clock() > deadline) {
    return {
      ok: false,
      problem: 'conflict',
      detail: `Free cancellation ends ${CANCELLATION_NOTICE_DAYS} days before the session starts, counted from the session first booked (a move does not change it)${deadline > 0 ? `: ${formatMoment(deadline)}` : ''}. This booking can no longer be cancelled, but it can be moved to a later session at no cost until its session starts.`,
    };
  }
  const stripe = services.payments?.stripe;
  if (!stripe) return { ok: false, problem: 'service-unavailable', detail: 'Payments are not configured on this site, so no refund can be made right now.' };
  if (!(await services.store.bookings.beginCancellation(booking.id))) return alreadyCancelled;

  let refund: Stripe.Refund;
  try {
    refund = await stripe.refunds.create(
      { payment_intent: booking.paymentIntent, metadata: { booking: booking.id } },
      { idempotencyKey: `refund:${booking.id}` },
    );
  } catch (error) {
    console.error(`/api/booking/cancel: refund of ${booking.id}: ${describeError(error)}`);
    return pending(`Your cancellation is recorded, but the payment service has not confirmed the refund yet.`);
  }
  let cancelled: Booking | undefined;
  try {
    cancelled = await services.store.bookings.cancel(booking.id, Date.now(), [
      bookingCancelledMail(
        { name: booking.name, address: booking.email },
        {
          title: product?.title ?? booking.product,
          session: session ? sessionDays(session) : booking.session,
          amount: booking.amount,
          currency: booking.currency,
          // A calendar that has the booking's meetings removes them (one version past the booking's).
          ...(product && session
            ? { calendar: bookingDetails(booking, product, session, { sequence: (booking.sequence ?? 0) + 1, now: clock(), cancelled: true }).calendar }
            : {}),
        },
      ),
    ]);
  } catch (error) {
    console.error(`/api/booking/cancel: recording the cancellation of ${booking.id}: ${describeError(error)}`);
    return pending('The refund is made, but the cancellation could not be recorded yet.');
  }
  if (!cancelled) return alreadyCancelled;
  services.mail.sendQueued();
  return { ok: true, status: 200, body: { status: 'cancelled', booking: booking.id, refund: refund.id }, redirect: BOOKING_CANCELLED_PAGE };
}

export const bookingCancelRoute = defineWriteRoute({
  route: writeRouteAddresses.bookingCancel,
  handle: { schema, action: cancelBooking },
  docs: { summary: 'Cancel a training booking with the token from its receipt.', responses },
});
