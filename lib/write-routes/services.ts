import { payments, sendQueuedMail, store } from '../services';
import type { Payments } from '../services/payments';
import type { Store } from '../services/store';

/*
 * The services the actions use (lib/services), made on their first use: reading the route
 * definitions (for /openapi.json and the docs page) opens no store and starts no worker.
 */

export async function storeNow(): Promise<Store> {
  return store();
}

export async function paymentsNow(): Promise<Payments | undefined> {
  return payments();
}

/** Sends the mail an action has just queued. */
export async function sendQueuedMailNow(): Promise<void> {
  sendQueuedMail();
}
