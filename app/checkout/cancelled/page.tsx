import Link from 'next/link';

export const metadata = { title: 'Checkout cancelled', description: 'Nothing was charged.', robots: { index: false } };

export default function CheckoutCancelled() {
  return (
    <>
      <h1>Checkout cancelled</h1>
      <p>Nothing was charged. Held training seats are released within the hour.</p>
      <p>
        <Link href="/pricing">Back to pricing</Link>
      </p>
    </>
  );
}
