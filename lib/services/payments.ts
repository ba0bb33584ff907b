import Stripe from 'stripe';

/**
 * Stripe, configured from the environment: STRIPE_SECRET_KEY and
 * STRIPE_WEBHOOK_SECRET; STRIPE_API_URL points the SDK at another host (a
 * local server that records requests, in tests). Without keys, undefined:
 * the checkout routes then answer 503 "payments are not configured".
 */
export type Payments = { stripe: Stripe; webhookSecret: string | undefined };

const GLOBAL_KEY = Symbol.for('lectern.payments');
type Holder = { [GLOBAL_KEY]?: Payments | null };

export function payments(): Payments | undefined {
  const holder = globalThis as Holder;
  if (holder[GLOBAL_KEY] === undefined) {
    const key = process.env.STRIPE_SECRET_KEY;
    if (!key) {
      holder[GLOBAL_KEY] = null;
    } else {
      const api = process.env.STRIPE_API_URL ? new URL(process.env.STRIPE_API_URL) : undefined;
      const stripe = new Stripe(key, {
        maxNetworkRetries: 2,
        timeout: 15_000,
        ...(api ? { host: api.hostname, port: api.port || (api.protocol === 'http:' ? 80 : 443), protocol: api.protocol === 'http:' ? 'http' : 'https' } : {}),
      });
      holder[GLOBAL_KEY] = { stripe, webhookSecret: process.env.STRIPE_WEBHOOK_SECRET || undefined };
    }
  }
  return holder[GLOBAL_KEY] ?? undefined;
}

/** Whether purchases can be made: the pricing page says so when not. */
export function paymentsConfigured(): boolean {
  return Boolean(process.env.STRIPE_SECRET_KEY);
}
