import { afterAll, describe, expect, it } from 'vitest';
import { newToken } from '@/lib/services/tokens';
import { bookingCancelRoute } from '@/lib/write-routes/booking-cancel';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { stripeForm } from '../../support/recorder';
import { testServices } from '../../support/services';
import { post, startStripeStandIn, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const stripe = await startStripeStandIn();
afterAll(() => stripe.close());
const { services, afterResponse, outboxMail } = testServices(stripe.settings);
const { POST } = handlersFor(bookingCancelRoute, () => services, settings);

let bookings = 0;
/** A paid booking of a session; its id and emailed token. */
async function booking(session: string): Promise<{ id: string; token: string }> {
  bookings += 1;
  const id = `booking-${bookings}-0000`;
  const token = newToken();
  const now = Date.now();
  await services.store.bookings.recordPayment({
    eventId: `evt_${id}`,
    order: { id: `order-${id}`, product: 'fixture-training', kind: 'training', amount: 49000, currency: 'EUR', email: 'buyer@example.com', createdAt: now },
    booking: {
      id,
      tokenHash: token.hash,
      product: 'fixture-training',
      session,
      seats: 1,
      email: 'buyer@example.com',
      paymentIntent: `pi_${id}`,
      amount: 49000,
      currency: 'EUR',
      status: 'confirmed',
      createdAt: now,
    },
    mails: [],
  });
  return { id, token: token.token };
}

describe('POST /api/booking/cancel', () => {
  it('refunds the payment once, cancels the booking and mails a confirmation', async () => {
    const { id, token } = await booking('spring');
    const response = await POST(post('/api/booking/cancel', { json: { booking: id, token, confirm: 'yes' } }));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({ status: 'cancelled', booking: id, refund: expect.stringMatching(/^re_test_\d+$/) });
    const refund = stripe.requests.at(-1);
    expect(refund?.headers['idempotency-key']).toBe(`refund:${id}`);
    expect(stripeForm(refund?.body ?? '')).toMatchObject({ payment_intent: `pi_${id}` });
    expect((await services.store.bookings.find(id))?.status).toBe('cancelled');
    await afterResponse();
    expect((await outboxMail()).map((mail) => mail.to?.[0]?.address)).toEqual(['buyer@example.com']);

    const again = await POST(post('/api/booking/cancel', { json: { booking: id, token, confirm: 'yes' } }));
    expect(again.status).toBe(409);
  });

  it('answers 404 alike for a wrong token and an unknown booking, asking Stripe nothing', async () => {
    const { id } = await booking('autumn');
    const before = stripe.requests.length;
    const wrong = await POST(post('/api/booking/cancel', { json: { booking: id, token: newToken().token, confirm: 'yes' } }));
    const unknown = await POST(post('/api/booking/cancel', { json: { booking: 'no-such-booking', token: newToken().token, confirm: 'yes' } }));
    expect([wrong.status, unknown.status]).toEqual([404, 404]);
    expect((await wrong.json()).detail).toBe((await unknown.json()).detail);
    expect(stripe.requests).toHaveLength(before);
    expect((await services.store.bookings.find(id))?.status).toBe('confirmed');
  });

  it('refuses a cancellation without the confirmation, naming the field, and asks Stripe nothing', async () => {
    const { id, token } = await booking('spring');
    const before = stripe.requests.length;
    for (const confirm of [undefined, 'no']) {
      const response = await POST(post('/api/booking/cancel', { json: { booking: id, token, ...(confirm ? { confirm } : {}) } }));
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect((await response.json()).errors).toEqual([expect.objectContaining({ path: 'confirm' })]);
    }
    expect(stripe.requests).toHaveLength(before);
    expect((await services.store.bookings.find(id))?.status).toBe('confirmed');
  });

  it('refuses a cancellation inside the notice period of a session', async () => {
    const { id, token } = await booking('started');
    const response = await POST(post('/api/booking/cancel', { form: { booking: id, token, confirm: 'yes' } }, { headers: { accept: 'application/json' } }));
    expect(response.status).toBe(409);
    expect((await response.json()).detail).toMatch(/^Free cancellation ends 7 days before the session starts/);
  });

  it("sends the page's form to the cancelled page", async () => {
    const { id, token } = await booking('winter');
    const response = await POST(post('/api/booking/cancel', { form: { booking: id, token, confirm: 'yes' } }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/booking/cancelled');
  });
});
