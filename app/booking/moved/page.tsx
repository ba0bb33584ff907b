import Link from 'next/link';

export const metadata = { title: 'Booking moved', description: 'Your training booking is moved to a later session.', robots: { index: false } };

export default function BookingMoved() {
  return (
    <>
      <h1>Booking moved</h1>
      <p>Your booking is moved to the session you chose, at no cost. An email with the updated calendar file is in your inbox.</p>
      <p>
        <Link href="/pricing">Back to pricing</Link>
      </p>
    </>
  );
}
