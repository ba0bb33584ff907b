import { productBySlug, type TrainingProduct } from '../products';
import { formatPrice } from '../products/price';
import { sessionDays } from '../products/when';
import type { Order } from '../services/store/types';

/** A Stripe Checkout Session id as Stripe makes them (`cs_test_…`, `cs_live_…`): anything else names no order. */
const CHECKOUT_SESSION_ID = /^cs_[A-Za-z0-9_]{1,250}$/;

export function isCheckoutSessionId(value: unknown): value is string {
  return typeof value === 'string' && CHECKOUT_SESSION_ID.test(value);
}

/** An address as the success page shows it, enough to recognise, not to read off a shared screen: "b•••@example.com". */
export function maskedEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '•••';
  return `${email[0]}•••${email.slice(at)}`;
}

/** What the checkout success page says of a paid order: the product's name, what was bought, the amount and where the receipt went. */
export type PaidOrderSummary = { title: string; bought: string; amount: string; email: string };

export function paidOrderSummary(order: Order): PaidOrderSummary {
  const product = productBySlug(order.product);
  const title = product?.title ?? order.product;
  const session = product?.kind === 'training' ? (product as TrainingProduct).sessions.find((entry) => entry.id === order.session) : undefined;
  const seats = order.seats ?? 1;
  const bought =
    product?.kind === 'training'
      ? `${seats} seat${seats === 1 ? '' : 's'}${session ? `, ${sessionDays(session)}` : ''}`
      : product?.kind === 'book'
        ? 'The book'
        : 'The download';
  return { title, bought, amount: formatPrice(order.amount, order.currency), email: maskedEmail(order.email) };
}
