import { afterAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { createPayments, paymentsConfigured } from '@/lib/services/payments';
import { startRecorder } from '../../support/recorder';

const stripeApi = await startRecorder(() => ({
  status: 200,
  body: { id: 'cs_test_1', object: 'checkout.session', url: 'https://checkout.example/cs_test_1' },
}));
afterAll(() => stripeApi.close());

describe('createPayments', () => {
  it('is undefined without STRIPE_SECRET_KEY, and the site then says purchases cannot be made', () => {
    expect(createPayments(parseSettings({}).payments)).toBeUndefined();
    expect(paymentsConfigured(parseSettings({}).payments)).toBe(false);
    expect(paymentsConfigured(parseSettings({ STRIPE_SECRET_KEY: 'sk_test_1' }).payments)).toBe(true);
  });

  it('speaks to the API at STRIPE_API_URL with the secret key, and keeps the webhook secret', async () => {
    const payments = createPayments(
      parseSettings({ STRIPE_SECRET_KEY: 'sk_test_123', STRIPE_WEBHOOK_SECRET: 'whsec_1', STRIPE_API_URL: stripeApi.url }).payments,
    );
    expect(payments?.webhookSecret).toBe('whsec_1');
    const session = await payments!.stripe.checkout.sessions.retrieve('cs_test_1');
    expect(session.url).toBe('https://checkout.example/cs_test_1');
    const request = stripeApi.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'GET', path: '/v1/checkout/sessions/cs_test_1' });
    expect(request.headers.authorization).toBe('Bearer sk_test_123');
  });

  it('has no webhook secret when STRIPE_WEBHOOK_SECRET is unset', () => {
    expect(createPayments(parseSettings({ STRIPE_SECRET_KEY: 'sk_test_123' }).payments)?.webhookSecret).toBeUndefined();
  });
});
