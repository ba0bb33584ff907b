import { afterAll, describe, expect, it } from 'vitest';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { trainingCheckoutRoute } from '@/lib/write-routes/training-checkout';
import { stripeForm } from '../../support/recorder';
import { testServices } from '../../support/services';
import { post, startStripeStandIn, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const stripe = await startStripeStandIn();
afterAll(() => stripe.close());
const { services } = testServices(stripe.settings);
const { POST } = handlersFor(trainingCheckoutRoute, () => services, settings);

const taken = (session: string) => services.store.bookings.seatsTaken('fixture-training', session, Date.now());

describe('POST /api/payments/training/checkout', () => {
  it('holds the seats asked for and starts a Checkout Session for them', async () => {
    const response = await POST(post('/api/payments/training/checkout', { json: { product: 'fixture-training', session: 'spring', seats: 3 } }));
    expect(response.status).toBe(200);
    expect(await taken('spring')).toBe(3);
    expect(stripeForm(stripe.requests.at(-1)?.body ?? '')).toMatchObject({
      'line_items[0][quantity]': '3',
      'line_items[0][price_data][unit_amount]': '49000',
      'metadata[session]': 'spring',
      'metadata[seats]': '3',
    });
  });

  it('holds a repeated attempt once', async () => {
    const attempt = 'attempt-training-0123456789';
    const client = '203.0.113.40';
    await POST(post('/api/payments/training/checkout', { form: { product: 'fixture-training', session: 'autumn', seats: '2', attempt } }, { client }));
    const again = await POST(
      post('/api/payments/training/checkout', { form: { product: 'fixture-training', session: 'autumn', seats: '2', attempt } }, { client }),
    );
    expect(again.status).toBe(303);
    expect(await taken('autumn')).toBe(2);
  });

  it('answers 409 when the session has not enough free seats, holding nothing', async () => {
    const response = await POST(post('/api/payments/training/checkout', { json: { product: 'fixture-training', session: 'winter', seats: 3 } }));
    expect(response.status).toBe(409);
    expect((await response.json()).detail).toBe('The session winter has 2 free seats; 3 were asked for.');
    expect(await taken('winter')).toBe(0);
  });

  it('answers 409 when one address would hold more than 4 seats across sessions', async () => {
    const client = '203.0.113.41';
    expect(
      (await POST(post('/api/payments/training/checkout', { json: { product: 'fixture-training', session: 'spring', seats: 3 } }, { client }))).status,
    ).toBe(200);
    const refused = await POST(post('/api/payments/training/checkout', { json: { product: 'fixture-training', session: 'autumn', seats: 2 } }, { client }));
    expect(refused.status).toBe(409);
    expect((await refused.json()).detail).toMatch(
      /^Your address already holds 3 seats in checkouts that are not paid yet, and at most 4 can be held at once; 2 more were asked for\./,
    );
  });

  it('answers 410 for a session that has started and 400 for one that does not exist', async () => {
    expect((await POST(post('/api/payments/training/checkout', { json: { product: 'fixture-training', session: 'started' } }))).status).toBe(410);
    const unknown = await POST(post('/api/payments/training/checkout', { json: { product: 'fixture-training', session: 'summer' } }));
    expect((await unknown.json()).errors).toEqual([{ path: 'session', message: 'must be one of the sessions on the pricing page' }]);
  });

  it('takes 1 to 4 seats, 1 when none are named', async () => {
    const many = await POST(post('/api/payments/training/checkout', { json: { product: 'fixture-training', session: 'spring', seats: 5 } }));
    expect((await many.json()).errors).toEqual([{ path: 'seats', message: 'must be at most 4' }]);
    const before = await taken('autumn');
    await POST(post('/api/payments/training/checkout', { json: { product: 'fixture-training', session: 'autumn' } }));
    expect(await taken('autumn')).toBe(before + 1);
  });
});
