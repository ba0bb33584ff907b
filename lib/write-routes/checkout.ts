import { z } from 'zod';
import { productBySlug } from '../products';
import { backToPricing, singleItemCheckout, wrongKind } from './checkout-session';
import { attempt, honeypot, slug } from './fields';
import { defineWriteRoute, type WriteContext, type WriteResult } from './definition';
import { writeRouteAddresses } from '../routes/manifest';

const schema = z.strictObject({ product: slug('bundle or the book'), attempt, website: honeypot });

/** A digital bundle or the book. */
async function checkout(input: z.output<typeof schema>, context: WriteContext): Promise<WriteResult> {
  const product = productBySlug(input.product);
  if (!product || (product.kind !== 'bundle' && product.kind !== 'book')) return wrongKind(input.product, 'bundle or book');
  return singleItemCheckout(product, 'checkout', context, input.attempt);
}

export const checkoutRoute = defineWriteRoute({
  route: writeRouteAddresses.checkout,
  handle: { schema, honeypot: backToPricing, action: checkout },
  docs: { summary: 'Start a Stripe Checkout for a digital bundle or the book.' },
});
