import Link from 'next/link';
import { clock } from '@/lib/runtime/site';
import { freeCancellationEnds } from '@/lib/bookings/details';
import { CANCELLATION_NOTICE_DAYS, laterSessions, productBySlug, sessionStart, type TrainingProduct } from '@/lib/products';
import { formatPrice } from '@/lib/products/price';
import { formatMoment, sessionDays, sessionMeetings } from '@/lib/products/when';
import { services } from '@/lib/runtime';
import type { Booking } from '@/lib/services/store';
import { hashToken, sameSecret } from '@/lib/services/tokens';
import { describeError } from '@/lib/log';
import { bookingCancelRoute } from '@/lib/write-routes/booking-cancel';
import { bookingMoveRoute } from '@/lib/write-routes/booking-move';

export const dynamic = 'force-dynamic';
export const metadata = {
  title: 'Cancel or move my booking',
  description: 'Cancel a training booking, or move it to a later session, with the link from its booking email.',
  robots: { index: false },
};

/** The booking the link names, when its token matches (compared in constant time); undefined for a wrong link or a store that cannot answer. */
async function linkedBooking(id: string, token: string): Promise<Booking | undefined> {
  try {
    const booking = await services().store.bookings.find(id);
    return booking && sameSecret(hashToken(token), booking.tokenHash) ? booking : undefined;
  } catch (error) {
    console.warn(`/booking/cancel: the booking could not be read (${describeError(error)})`);
    return undefined;
  }
}

/** Later sessions of the training with room for the booking's seats, each with its meetings in words and its free seats. */
async function moveChoices(training: TrainingProduct, booking: Booking, now: number) {
  const current = training.sessions.find((entry) => entry.id === booking.session);
  if (!current) return [];
  const choices = await Promise.all(
    laterSessions(training, current, now).map(async (session) => ({
      session,
      // Holds expire by the wall clock's time; which sessions are later, by the site's clock.
      free: session.seats - (await services().store.bookings.seatsTaken(training.slug, session.id, Date.now())),
    })),
  );
  return choices.filter((choice) => choice.free >= booking.seats);
}

const seatCount = (seats: number) => `${seats} seat${seats === 1 ? '' : 's'}`;

/** This page's address for a booking, with its token; `confirm` for the cancellation's confirmation step. */
function manageHref(id: string, token: string, confirm = false): string {
  return `/booking/cancel?${new URLSearchParams({ booking: id, token, ...(confirm ? { step: 'confirm' } : {}) })}`;
}

/**
 * The page behind the link in a booking email: the booking's meetings, a link to cancel it (within
 * the policy) and a form that moves it to a later session. Cancelling takes two steps: the link
 * opens this page's confirmation step (`step=confirm`), which says what is cancelled and what is
 * refunded, and only its form posts the cancellation (with `confirm=yes`, which the route requires).
 */
export default async function ManageBookingPage({ searchParams }: PageProps<'/booking/cancel'>) {
  const { booking: id, token, step } = await searchParams;
  const valid = typeof id === 'string' && typeof token === 'string' && id.length <= 64 && token.length <= 128;
  const booking = valid ? await linkedBooking(id, token) : undefined;
  const product = booking ? productBySlug(booking.product) : undefined;
  const training = product?.kind === 'training' ? (product as TrainingProduct) : undefined;
  const session = training?.sessions.find((entry) => entry.id === booking?.session);
  const now = clock();
  const choices = booking && training && session && booking.status === 'confirmed' ? await moveChoices(training, booking, now) : [];
  const cancelUntil = booking ? freeCancellationEnds(booking, session) : 0;
  // A cancellation left half done (its refund not confirmed) is finished whatever the date: it was asked for in time.
  const cancellable = booking !== undefined && (booking.status === 'cancelling' || (booking.status === 'confirmed' && now <= cancelUntil));
  const refund = booking ? formatPrice(booking.amount, booking.currency) : '';
  if (valid && booking && training && session && cancellable && step === 'confirm') {
    return (
      <>
        <h1>Cancel my booking?</h1>
        <p>You are about to cancel this booking:</p>
        <ul>
          <li>{training.title}</li>
          <li>{`${sessionDays(session)}, ${seatCount(booking.seats)}`}</li>
        </ul>
        <p>
          The full price, <strong>{refund}</strong>, is refunded to the card that paid. Your seats are given up, and this cannot be undone.
        </p>
        <form method="post" action={bookingCancelRoute.path} className="post-form">
          <input type="hidden" name="booking" value={id} />
          <input type="hidden" name="token" value={token} />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" className="button">
            {`Yes, cancel and refund ${refund}`}
          </button>
        </form>
        <p>
          <Link href={manageHref(id, token)}>No, keep my booking</Link>
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Cancel or move my booking</h1>
      <p>
        Bookings can be cancelled free of charge until {CANCELLATION_NOTICE_DAYS} days before the session starts; the full price is refunded to the card that
        paid. After that, and until the session starts, a booking can be moved to a later session with free seats at no cost.
      </p>
      {!valid && <p>This link is incomplete. Use the link from your booking email.</p>}
      {valid && booking && training && session && (
        <>
          <h2>Your booking</h2>
          <p>{`${training.title}, ${sessionDays(session)}, ${seatCount(booking.seats)}${booking.status === 'confirmed' ? '' : ' (cancelled)'}:`}</p>
          <ul>
            {sessionMeetings(session).map((meeting) => (
              <li key={meeting}>{meeting}</li>
            ))}
          </ul>
        </>
      )}
      {valid && booking && booking.status !== 'cancelled' && (
        <section className="post-form">
          <h2>Cancel</h2>
          {cancellable ? (
            <>
              <p>{`Free cancellation until ${formatMoment(cancelUntil)}, with a refund of ${refund}.`}</p>
              <p>
                <Link href={manageHref(id, token, true)} className="button">
                  Cancel this booking
                </Link>
              </p>
            </>
          ) : (
            <p>{`Free cancellation ended ${formatMoment(cancelUntil)}; you can still move the booking to a later session until it starts.`}</p>
          )}
        </section>
      )}
      {booking?.status === 'confirmed' && session && now < sessionStart(session) && (
        <form method="post" action={bookingMoveRoute.path} className="post-form booking-form">
          <h2>Move to a later session</h2>
          <input type="hidden" name="booking" value={id} />
          <input type="hidden" name="token" value={token} />
          {choices.length > 0 ? (
            <>
              <div className="field">
                <label htmlFor="move-session">New session</label>
                <select id="move-session" name="session">
                  {choices.map(({ session: later, free }) => (
                    <option key={later.id} value={later.id}>
                      {sessionMeetings(later).join(' and ')} ({free} free)
                    </option>
                  ))}
                </select>
              </div>
              <p>Moving costs nothing; you get an email with the updated calendar file.</p>
              <button type="submit" className="button">
                Move my booking
              </button>
            </>
          ) : (
            <p>No later session has {booking.seats === 1 ? 'a free seat' : `${booking.seats} free seats`} right now.</p>
          )}
        </form>
      )}
    </>
  );
}
