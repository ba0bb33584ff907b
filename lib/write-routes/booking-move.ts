import { z } from 'zod';
import { bookingDetails, bookingManageUrl, freeCancellationEnds, reminderTime } from '../bookings/details';
import { clock } from '../runtime/site';
import { laterSessions, productBySlug, sessionStart, type TrainingProduct } from '../products';
import { formatMoment, sessionDays } from '../products/when';
import { writeRouteAddresses } from '../routes/manifest';
import { bookingMovedMail } from '../services/mail/templates';
import { hashToken, sameSecret } from '../services/tokens';
import { required } from './fields';
import { defineWriteRoute, problemStatus, type WriteContext, type WriteResult } from './definition';

const BOOKING_MOVED_PAGE = '/booking/moved';

const schema = z.strictObject({
  booking: z.string(required('text')).regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be a booking id'),
  token: z.string(required('text')).regex(/^[A-Za-z0-9_-]{16,128}$/, 'must be the token from the booking email'),
  session: z.string(required('text')).regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a session id'),
});

const responses = {
  '404': problemStatus('No booking matches this id and token (the same answer for both).'),
  '409': problemStatus(
    'The new session has too few free seats (`detail` says how many are left), the booking is cancelled, its session has started, or it was moved meanwhile.',
  ),
};

const notFound: WriteResult = { ok: false, problem: 'not-found', detail: 'No booking matches this id and token.' };

/**
 * Moves a training booking, with its emailed token (compared in constant time; a wrong token and an
 * unknown booking get the same 404), to a later session of the same training that has room for
 * its seats, at no cost, until its own session starts. The store takes the seats in the new
 * session and frees them in the old one in one atomic step, so two moves racing for the last
 * seat get one 200 and one 409; the mail carries the booking's calendar file with the same UIDs
 * and a SEQUENCE one higher, and the reminder is set for the new session.
 */
async function moveBooking(input: z.output<typeof schema>, { services, settings }: WriteContext): Promise<WriteResult> {
  const booking = await services.store.bookings.find(input.booking);
  const expected = booking?.tokenHash ?? hashToken('no booking has this token');
  if (!sameSecret(hashToken(input.token), expected) || !booking) return notFound;
  if (booking.status !== 'confirmed') return { ok: false, problem: 'conflict', detail: `Booking ${booking.id} is cancelled; there is nothing to move.` };
  const product = productBySlug(booking.product);
  const training = product?.kind === 'training' ? (product as TrainingProduct) : undefined;
  const current = training?.sessions.find((entry) => entry.id === booking.session);
  if (!training || !current)
    return { ok: false, problem: 'conflict', detail: `The session of booking ${booking.id} is no longer offered; write to us through the support page.` };
  const now = clock();
  if (now >= sessionStart(current))
    return {
      ok: false,
      problem: 'conflict',
      detail: `Your session started ${formatMoment(sessionStart(current))}; a booking can be moved only until its session starts.`,
    };
  const later = laterSessions(training, current, now);
  const target = later.find((entry) => entry.id === input.session);
  if (!target)
    return {
      ok: false,
      problem: 'invalid-input',
      detail: `"${input.session}" is not a later session of ${training.title}.`,
      errors: [
        { path: 'session', message: later.length > 0 ? `must be one of ${later.map((entry) => entry.id).join(', ')}` : 'there is no later session to move to' },
      ],
    };
  const sequence = booking.sequence ?? 0;
  const manageUrl = bookingManageUrl(booking.id, input.token);
  const mail = bookingMovedMail(
    { name: booking.name, address: booking.email },
    { ...bookingDetails(booking, training, target, { sequence: sequence + 1, now, manageUrl }), from: sessionDays(current), manageUrl },
  );
  const remindAt = reminderTime(target, now, settings.bookings.reminderLeadMs);
  const outcome = await services.store.bookings.move({
    id: booking.id,
    from: current.id,
    to: target.id,
    sequence,
    capacity: target.seats,
    // The deadline of the session first booked stays the booking's: a move never reopens a refund.
    cancelUntil: freeCancellationEnds(booking, current),
    ...(remindAt !== undefined ? { remindAt } : {}),
    // Holds and the outbox keep the wall clock's time; the site's clock decides what has started.
    now: Date.now(),
    mails: [mail],
  });
  if (outcome === 'full') {
    const free = Math.max(0, target.seats - (await services.store.bookings.seatsTaken(training.slug, target.id, Date.now())));
    return {
      ok: false,
      problem: 'conflict',
      detail: `The session ${target.id} has ${free} free seat${free === 1 ? '' : 's'}, and this booking has ${booking.seats}. Your booking is unchanged; choose another session.`,
    };
  }
  if (outcome === 'changed')
    return { ok: false, problem: 'conflict', detail: `Booking ${booking.id} was moved or cancelled meanwhile; open the link from your booking email again.` };
  services.mail.sendQueued();
  return {
    ok: true,
    status: 200,
    body: { status: 'moved', booking: booking.id, from: current.id, session: target.id, sequence: sequence + 1 },
    redirect: BOOKING_MOVED_PAGE,
  };
}

export const bookingMoveRoute = defineWriteRoute({
  route: writeRouteAddresses.bookingMove,
  handle: { schema, action: moveBooking },
  docs: { summary: 'Move a training booking to a later session with free seats, at no cost, with the token from its booking email.', responses },
});
