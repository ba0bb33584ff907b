import { afterAll, describe, expect, it } from 'vitest';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { specialOfferCheckoutRoute } from '@/lib/write-routes/special-offer-checkout';
import { stripeForm } from '../../support/recorder';
import { testServices } from '../../support/services';
import { post, startStripeStandIn, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const stripe = await startStripeStandIn();
afterAll(() => stripe.close());
const { services } = testServices(stripe.settings);
const { POST } = handlersFor(specialOfferCheckoutRoute, () => services, settings);

describe('POST /api/payments/special-offer/checkout', () => {
  it('starts a Checkout Session for an offer inside its window', async () => {
    const response = await POST(post('/api/payments/special-offer/checkout', { json: { product: 'fixture-offer' } }));
    expect(response.status).toBe(200);
    expect(stripeForm(stripe.requests.at(-1)?.body ?? '')).toMatchObject({ 'line_items[0][price_data][unit_amount]': '3900', 'metadata[kind]': 'offer' });
  });

  it('answers 410 with the window for an offer that has ended, asking Stripe nothing', async () => {
    const before = stripe.requests.length;
    const response = await POST(post('/api/payments/special-offer/checkout', { json: { product: 'fixture-old-offer' } }));
    expect(response.status).toBe(410);
    expect((await response.json()).detail).toBe(
      'The offer "Fixture Old Offer" has ended: it is available from 2020-01-01T00:00:00+00:00 until 2020-02-01T00:00:00+00:00.',
    );
    expect(stripe.requests).toHaveLength(before);
  });

  it('refuses a product that is no special offer', async () => {
    const response = await POST(post('/api/payments/special-offer/checkout', { json: { product: 'fixture-bundle' } }));
    expect(response.status).toBe(400);
    expect((await response.json()).errors).toEqual([{ path: 'product', message: 'must be the slug of a special offer' }]);
  });
});
