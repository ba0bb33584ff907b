import Link from 'next/link';

export const metadata = { title: 'Thank you', description: 'Your payment went through.', robots: { index: false } };

export default function CheckoutSuccess() {
  return (
    <>
      <h1>Thank you</h1>
      <p>Your payment went through. A receipt is on its way to your inbox; for a training booking it holds the link to cancel it.</p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
