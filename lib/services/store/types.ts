import type { BookingStore } from './bookings/types';
import type { BounceStore } from './bounces/types';
import type { NewsletterStore } from './newsletter/types';
import type { OrderStore } from './orders/types';
import type { OutboxStore } from './outbox/types';
import type { SettingsStore } from './settings/types';
import type { SubscriberStore } from './subscribers/types';
import type { SupportStore } from './support/types';

export type * from './bookings/types';
export type * from './bounces/types';
export type * from './newsletter/types';
export type * from './orders/types';
export type * from './outbox/types';
export type * from './settings/types';
export type * from './subscribers/types';
export type * from './support/types';

/**
 * Everything the forms keep, one part per aggregate. Each method that records
 * a submission also queues its mail in the same atomic write, so an answered
 * request has both or neither. Two backends: embedded SQLite (default) and Redis.
 */
export interface Store {
  readonly kind: 'sqlite' | 'redis';
  readonly subscribers: SubscriberStore;
  readonly support: SupportStore;
  readonly outbox: OutboxStore;
  readonly bookings: BookingStore;
  readonly orders: OrderStore;
  readonly settings: SettingsStore;
  readonly newsletter: NewsletterStore;
  /** Bounces and complaints, matched to the messages by their bounce tokens. */
  readonly bounces: BounceStore;
  /** One cheap round trip to the backend: resolves when it answers (the health check). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
