import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { handleStripeWebhook } from '@/lib/payments/webhook';
import { settings } from '@/lib/settings';
import { testServices } from '../../support/services';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const { services, afterResponse, outboxMail, storedData } = testServices({ STRIPE_SECRET_KEY: 'sk_test_local', STRIPE_WEBHOOK_SECRET: 'whsec_unit' });

const stripe = new Stripe('sk_test_local');

/** An event as Stripe sends it: the JSON body and its signature, made with `secret`. */
function delivery(event: Record<string, unknown>, secret = 'whsec_unit'): Request {
  const payload = JSON.stringify(event);
  const signature = stripe.webhooks.generateTestHeaderString({ payload, secret });
  return new Request('http://localhost:3000/api/payments/webhook', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  });
}

const paidBook = {
  id: 'evt_book_1',
  object: 'event',
  type: 'checkout.session.completed',
  data: {
    object: {
      id: 'cs_book_1',
      object: 'checkout.session',
      payment_status: 'paid',
      amount_total: 2900,
      currency: 'usd',
      customer_details: { email: 'buyer@example.com', name: 'Ada' },
      metadata: { product: 'fixture-book', kind: 'book' },
    },
  },
};

describe('the Stripe webhook', () => {
  it('records a paid checkout once per event and mails the receipt', async () => {
    const response = await handleStripeWebhook(delivery(paidBook), services, settings());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true, outcome: 'recorded' });
    const stored = storedData();
    expect(await stored.orders()).toEqual([
      expect.objectContaining({ id: 'cs_book_1', product: 'fixture-book', kind: 'book', amount: 2900, currency: 'USD', email: 'buyer@example.com' }),
    ]);
    await afterResponse();
    expect((await outboxMail()).map((mail) => mail.to?.[0]?.address)).toEqual(['buyer@example.com']);

    const again = await handleStripeWebhook(delivery(paidBook), services, settings());
    expect(await again.json()).toEqual({ received: true, outcome: 'duplicate' });
    expect(await stored.orders()).toHaveLength(1);
    await stored.close();
  });

  it('refuses an event whose signature was made with another secret, 400, recording nothing', async () => {
    const response = await handleStripeWebhook(delivery({ ...paidBook, id: 'evt_forged' }, 'whsec_other'), services, settings());
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ detail: 'The Stripe signature does not match this body.' });
  });

  it('ignores a checkout that is not paid yet', async () => {
    const unpaid = { ...paidBook, id: 'evt_unpaid', data: { object: { ...paidBook.data.object, id: 'cs_unpaid', payment_status: 'unpaid' } } };
    expect(await (await handleStripeWebhook(delivery(unpaid), services, settings())).json()).toEqual({ received: true, outcome: 'ignored' });
  });
});
