import { z } from 'zod';
import { productBySlug, type OfferProduct } from '../products';
import { backToPricing, singleItemCheckout, wrongKind } from './checkout-session';
import { attempt, honeypot, slug } from './fields';
import { defineWriteRoute, problemStatus, type WriteContext, type WriteResult } from './definition';
import { writeRouteAddresses } from '../routes/manifest';

const schema = z.strictObject({ product: slug('special offer'), attempt, website: honeypot });

const responses = { '410': problemStatus('Outside the offer window (given in `detail`).') };

/** A special offer, only inside its window: 410 Gone with the window otherwise. */
async function specialOfferCheckout(input: z.output<typeof schema>, context: WriteContext): Promise<WriteResult> {
  const product = productBySlug(input.product);
  if (!product || product.kind !== 'offer') return wrongKind(input.product, 'special offer');
  const offer = product as OfferProduct;
  const now = Date.now();
  if (now < Date.parse(offer.starts) || now >= Date.parse(offer.ends)) {
    const when = now < Date.parse(offer.starts) ? 'has not started yet' : 'has ended';
    return { ok: false, problem: 'gone', detail: `The offer "${offer.title}" ${when}: it is available from ${offer.starts} until ${offer.ends}.` };
  }
  return singleItemCheckout(product, 'offer', context, input.attempt);
}

export const specialOfferCheckoutRoute = defineWriteRoute({
  route: writeRouteAddresses.specialOfferCheckout,
  handle: { schema, honeypot: backToPricing, action: specialOfferCheckout },
  docs: { summary: 'Start a Stripe Checkout for a special offer, inside its time window.', responses },
});
