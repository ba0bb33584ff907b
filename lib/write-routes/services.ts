import type { Payments } from '../services/payments';
import type { Store } from '../services/store';

/*
 * The services the actions use (lib/services), loaded when an action first runs rather than
 * with the route definitions: lectern's own server reads the registry for the limits at
 * start-up, and needs neither the store's drivers nor Stripe's SDK for that (nor the mail
 * worker, which uses Next's request scope).
 */

export async function storeNow(): Promise<Store> {
  return (await import('../services')).store();
}

export async function paymentsNow(): Promise<Payments | undefined> {
  return (await import('../services')).payments();
}

/** Sends the mail an action has just queued. */
export async function sendQueuedMailNow(): Promise<void> {
  (await import('../services')).sendQueuedMail();
}
