import { products, type Product } from '../content';

export type TrainingProduct = Extract<Product, { kind: 'training' }>;
export type OfferProduct = Extract<Product, { kind: 'offer' }>;

export function productBySlug(slug: string): Product | undefined {
  return products().find((product) => product.slug === slug);
}

/** Free cancellation until this long before a training session starts (the pricing page says so). */
export const CANCELLATION_NOTICE_DAYS = 7;

export function cancellationDeadline(sessionStart: string): number {
  return Date.parse(sessionStart) - CANCELLATION_NOTICE_DAYS * 24 * 60 * 60 * 1000;
}
