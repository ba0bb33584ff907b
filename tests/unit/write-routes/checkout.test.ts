import { afterAll, describe, expect, it } from 'vitest';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { checkoutRoute } from '@/lib/write-routes/checkout';
import { stripeForm } from '../../support/recorder';
import { testServices } from '../../support/services';
import { post, startStripeStandIn, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const stripe = await startStripeStandIn();
afterAll(() => stripe.close());
const { services } = testServices(stripe.settings);
const { POST } = handlersFor(checkoutRoute, () => services, settings);

describe('POST /api/payments/checkout', () => {
  it('starts a Checkout Session at the price of content/products and answers its URL', async () => {
    const response = await POST(post('/api/payments/checkout', { json: { product: 'fixture-bundle' } }));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.url).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_\d+$/);
    const sent = stripeForm(stripe.requests.at(-1)?.body ?? '');
    expect(sent).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][unit_amount]': '1500',
      'line_items[0][price_data][currency]': 'usd',
      'metadata[product]': 'fixture-bundle',
      'metadata[kind]': 'bundle',
      success_url: 'http://localhost:3000/checkout/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:3000/checkout/cancelled?product=fixture-bundle',
    });
  });

  it('sends a form post on to Stripe with 303', async () => {
    const response = await POST(post('/api/payments/checkout', { form: { product: 'fixture-book' } }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/^https:\/\/checkout\.stripe\.com\//);
  });

  it('sends one attempt from one address under one idempotency key, and another address under another', async () => {
    const attempt = 'attempt-0123456789abcdef';
    await POST(post('/api/payments/checkout', { json: { product: 'fixture-bundle', attempt } }, { client: '203.0.113.30' }));
    await POST(post('/api/payments/checkout', { json: { product: 'fixture-bundle', attempt } }, { client: '203.0.113.30' }));
    await POST(post('/api/payments/checkout', { json: { product: 'fixture-bundle', attempt } }, { client: '203.0.113.31' }));
    const keys = stripe.requests.slice(-3).map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('refuses a product that is not a bundle or the book, asking Stripe nothing', async () => {
    const before = stripe.requests.length;
    const response = await POST(post('/api/payments/checkout', { json: { product: 'fixture-training' } }));
    expect(response.status).toBe(400);
    expect((await response.json()).errors).toEqual([{ path: 'product', message: 'must be the slug of a bundle or book' }]);
    expect(stripe.requests).toHaveLength(before);
  });

  it('answers a filled honeypot by sending the form back to the pricing page, asking Stripe nothing', async () => {
    const before = stripe.requests.length;
    const response = await POST(post('/api/payments/checkout', { form: { product: 'fixture-bundle', website: 'x' } }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/pricing');
    expect(stripe.requests).toHaveLength(before);
  });
});
