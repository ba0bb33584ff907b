import Link from 'next/link';
import { notFound } from 'next/navigation';
import { describeError } from '@/lib/log';
import { isCheckoutSessionId, paidOrderSummary } from '@/lib/payments/paid-order';
import { services } from '@/lib/runtime';
import type { Order } from '@/lib/services/store';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Thank you', description: 'Your order.', robots: { index: false } };

/** The paid order Stripe sent the buyer back with; undefined when none is recorded (made up, refunded, not arrived yet) or the store cannot answer. */
async function paidOrder(id: string): Promise<Order | undefined> {
  try {
    return await services().store.orders.find(id);
  } catch (error) {
    console.warn(`/checkout/success: the order could not be read (${describeError(error)})`);
    return undefined;
  }
}

/**
 * Where Stripe sends a buyer after paying (`?session_id=`): the order recorded for that checkout,
 * by the product's name, what was bought, the amount and the masked address its receipt went to.
 * A checkout with no paid order recorded gets a 404 page that says so (not-found.tsx).
 */
export default async function CheckoutSuccess({ searchParams }: PageProps<'/checkout/success'>) {
  const { session_id: id } = await searchParams;
  const order = isCheckoutSessionId(id) ? await paidOrder(id) : undefined;
  if (!order) notFound();
  const summary = paidOrderSummary(order);
  return (
    <>
      <h1>Thank you</h1>
      <p>Your payment went through. This is your order:</p>
      <dl className="order-summary">
        <dt>Product</dt>
        <dd>{summary.title}</dd>
        <dt>What you bought</dt>
        <dd>{summary.bought}</dd>
        <dt>Paid</dt>
        <dd>{summary.amount}</dd>
        <dt>Receipt sent to</dt>
        <dd>{summary.email}</dd>
      </dl>
      <p>
        {order.kind === 'training'
          ? 'The receipt holds the calendar file and the link to cancel or move your booking.'
          : 'The receipt holds your download links.'}
      </p>
      <p>
        <Link href="/">Back to the home page</Link>
      </p>
    </>
  );
}
