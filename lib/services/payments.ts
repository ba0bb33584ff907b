import Stripe from 'stripe';
import { env, type Env } from '../env';

/**
 * Stripe, configured from the settings: STRIPE_SECRET_KEY and
 * STRIPE_WEBHOOK_SECRET; STRIPE_API_URL points the SDK at another host (a
 * local server that records requests, in tests). Without a key, undefined:
 * the checkout routes then answer 503 "payments are not configured".
 */
export type Payments = { stripe: Stripe; webhookSecret: string | undefined };

type PaymentSettings = Pick<Env, 'STRIPE_SECRET_KEY' | 'STRIPE_WEBHOOK_SECRET' | 'STRIPE_API_URL'>;

export function createPayments(settings: PaymentSettings): Payments | undefined {
  const key = settings.STRIPE_SECRET_KEY;
  if (!key) return undefined;
  const api = settings.STRIPE_API_URL ? new URL(settings.STRIPE_API_URL) : undefined;
  const stripe = new Stripe(key, {
    maxNetworkRetries: 2,
    timeout: 15_000,
    ...(api ? { host: api.hostname, port: api.port || (api.protocol === 'http:' ? 80 : 443), protocol: api.protocol === 'http:' ? 'http' : 'https' } : {}),
  });
  return { stripe, webhookSecret: settings.STRIPE_WEBHOOK_SECRET };
}

/** Whether purchases can be made: the pricing page says so when not. */
export function paymentsConfigured(settings: PaymentSettings = env()): boolean {
  return Boolean(settings.STRIPE_SECRET_KEY);
}
