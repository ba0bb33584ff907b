import Stripe from 'stripe';
import type { Settings } from '../settings';

/**
 * Stripe, configured from the settings: STRIPE_SECRET_KEY and
 * STRIPE_WEBHOOK_SECRET; STRIPE_API_URL points the SDK at another host (a
 * local server that records requests, in tests). Without a key, undefined:
 * the checkout routes then answer 503 "payments are not configured".
 */
export type Payments = { stripe: Stripe; webhookSecret: string | undefined };

type PaymentSettings = Settings['payments'];

export function createPayments(settings: PaymentSettings): Payments | undefined {
  const key = settings.secretKey;
  if (!key) return undefined;
  const api = settings.apiUrl ? new URL(settings.apiUrl) : undefined;
  const stripe = new Stripe(key, {
    maxNetworkRetries: 2,
    timeout: 15_000,
    ...(api ? { host: api.hostname, port: api.port || (api.protocol === 'http:' ? 80 : 443), protocol: api.protocol === 'http:' ? 'http' : 'https' } : {}),
  });
  return { stripe, webhookSecret: settings.webhookSecret };
}

/** Whether purchases can be made: the pricing page says so when not. */
export function paymentsConfigured(payments: PaymentSettings): boolean {
  return Boolean(payments.secretKey);
}
