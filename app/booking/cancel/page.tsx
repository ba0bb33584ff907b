import { CANCELLATION_NOTICE_DAYS } from '@/lib/products';
import { bookingCancelRoute } from '@/lib/write-routes/booking-cancel';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Cancel my booking', description: 'Cancel a training booking with the link from its receipt.', robots: { index: false } };

/** The page behind the link in a booking receipt: one button posts the id and token. */
export default async function CancelBookingPage({ searchParams }: PageProps<'/booking/cancel'>) {
  const { booking, token } = await searchParams;
  const valid = typeof booking === 'string' && typeof token === 'string' && booking.length <= 64 && token.length <= 128;
  return (
    <>
      <h1>Cancel my booking</h1>
      <p>
        Bookings can be cancelled free of charge until {CANCELLATION_NOTICE_DAYS} days before the session starts; the full price is refunded to the card that
        paid.
      </p>
      {valid ? (
        <form method="post" action={bookingCancelRoute.path} className="post-form">
          <input type="hidden" name="booking" value={booking} />
          <input type="hidden" name="token" value={token} />
          <p>
            Booking <code>{booking}</code>
          </p>
          <button type="submit" className="button">
            Cancel this booking
          </button>
        </form>
      ) : (
        <p>This link is incomplete. Use the link from your booking email.</p>
      )}
    </>
  );
}
