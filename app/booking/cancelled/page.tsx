import Link from 'next/link';

export const metadata = { title: 'Booking cancelled', description: 'Your training booking is cancelled and refunded.', robots: { index: false } };

export default function BookingCancelled() {
  return (
    <>
      <h1>Booking cancelled</h1>
      <p>Your booking is cancelled and the refund is on its way to your card. A confirmation is in your inbox.</p>
      <p>
        <Link href="/pricing">Back to pricing</Link>
      </p>
    </>
  );
}
