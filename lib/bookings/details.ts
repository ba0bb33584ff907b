import { absoluteUrl } from '../runtime/site';
import { cancellationDeadline, sessionStart, type TrainingProduct, type TrainingSession } from '../products';
import { sessionDays, sessionMeetings } from '../products/when';
import type { BookingDetails } from '../services/mail/templates';
import type { Booking } from '../services/store/types';
import { bookingCalendar } from './calendar';

/** The page a booking is cancelled or moved from: the link in its booking mail, with its token. */
export function bookingManageUrl(id: string, token: string): string {
  return absoluteUrl(`/booking/cancel?booking=${encodeURIComponent(id)}&token=${encodeURIComponent(token)}`);
}

/**
 * When a booking's free cancellation ends: the deadline fixed when it was booked, which a move
 * keeps (moving to a later session never reopens a refund); for a booking made before the
 * deadline was kept, its session's.
 */
export function freeCancellationEnds(booking: Pick<Booking, 'cancelUntil'>, session: TrainingSession | undefined): number {
  return booking.cancelUntil ?? (session ? cancellationDeadline(session) : 0);
}

/** When a booking of `session` is reminded: `leadMs` before its first meeting; none when that is not after `now` (the booking mail has said it all). */
export function reminderTime(session: TrainingSession, now: number, leadMs: number): number | undefined {
  const at = sessionStart(session) - leadMs;
  return at > now ? at : undefined;
}

/** What the mails about a booking say of it, in `session` at calendar version `sequence`. */
export function bookingDetails(
  booking: Pick<Booking, 'id' | 'seats'>,
  training: TrainingProduct,
  session: TrainingSession,
  options: { sequence: number; now: number; manageUrl?: string; cancelled?: boolean },
): BookingDetails {
  return {
    id: booking.id,
    title: training.title,
    session: sessionDays(session),
    meetings: sessionMeetings(session),
    seats: booking.seats,
    ...(training.joining ? { joining: training.joining } : {}),
    calendar: bookingCalendar({
      booking: booking.id,
      training,
      session,
      sequence: options.sequence,
      now: options.now,
      ...(options.manageUrl ? { manageUrl: options.manageUrl } : {}),
      ...(options.cancelled ? { cancelled: true } : {}),
    }),
  };
}
