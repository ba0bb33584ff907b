import { afterAll, describe, expect, it } from 'vitest';
import { newToken } from '@/lib/services/tokens';
import { bookingMoveRoute } from '@/lib/write-routes/booking-move';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { testServices } from '../../support/services';
import { post, startStripeStandIn, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const stripe = await startStripeStandIn();
afterAll(() => stripe.close());
const { services } = testServices(stripe.settings);
const { POST } = handlersFor(bookingMoveRoute, () => services, settings);

let bookings = 0;
/** A paid booking of a session of the fixture training; its id and emailed token. */
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

describe('POST /api/booking/move', () => {
  it('refuses once the booked session has started: a move is possible only until then', async () => {
    const { id, token } = await booking('started');
    const response = await POST(post('/api/booking/move', { json: { booking: id, token, session: 'autumn' } }));
    expect(response.status).toBe(409);
    expect((await response.json()).detail).toBe('Your session started Sunday 1 March 2020, 03:00 EST; a booking can be moved only until its session starts.');
    expect(await services.store.bookings.find(id)).toMatchObject({ session: 'started' });
  });

  it('refuses a cancelled booking, and an unknown session as invalid input naming the later ones', async () => {
    const { id, token } = await booking('spring');
    const unknown = await POST(post('/api/booking/move', { json: { booking: id, token, session: 'no-such-session' } }));
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).errors).toEqual([{ path: 'session', message: 'must be one of autumn, winter' }]);
    await services.store.bookings.beginCancellation(id);
    const cancelled = await POST(post('/api/booking/move', { json: { booking: id, token, session: 'autumn' } }));
    expect(cancelled.status).toBe(409);
    expect((await cancelled.json()).detail).toBe(`Booking ${id} is cancelled; there is nothing to move.`);
  });
});
