import Link from 'next/link';

export const metadata = { title: 'Order not found', description: 'No paid order matches this link.', robots: { index: false } };

/** The success page for a checkout with no paid order recorded: made up, refunded, or its payment not arrived yet. */
export default function OrderNotFound() {
  return (
    <>
      <h1>Order not found</h1>
      <p>We cannot find a paid order for this link.</p>
      <p>
        If you have just paid, the payment may take a minute to reach us: reload this page shortly. Your receipt arrives by email either way, and reloading
        never charges you again.
      </p>
      <p>
        <Link href="/pricing">Back to pricing</Link> or <Link href="/support">write to us</Link>.
      </p>
    </>
  );
}
