/** An email waiting in the outbox: everything needed to send it, so nothing depends on memory. */
export type OutgoingMail = {
  to: { name?: string; address: string };
  replyTo?: { name?: string; address: string };
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
};

export type OutboxEntry = { id: string; mail: OutgoingMail; attempts: number };

export type SubscriberStatus = 'pending' | 'confirmed' | 'unsubscribed';
/**
 * `unsubscribeToken` is kept as is, not hashed: every future message must carry
 * it, and it grants nothing but unsubscribing. The confirmation token, which
 * grants a subscription, is kept only as a hash.
 */
export type Subscriber = { email: string; name?: string; status: SubscriberStatus; unsubscribeToken: string; createdAt: number; confirmedAt?: number };

export type SupportMessage = { id: string; name: string; email: string; subject: string; message: string; createdAt: number };

export type Order = { id: string; product: string; kind: string; amount: number; currency: string; email: string; createdAt: number };

export type BookingStatus = 'confirmed' | 'cancelled';
export type Booking = {
  id: string;
  tokenHash: string;
  product: string;
  session: string;
  seats: number;
  email: string;
  name?: string;
  paymentIntent: string;
  amount: number;
  currency: string;
  status: BookingStatus;
  createdAt: number;
  cancelledAt?: number;
};

/** Seats set aside while a buyer is on Stripe's checkout page. */
export type Hold = { id: string; product: string; session: string; seats: number; expiresAt: number };

/**
 * Everything the forms keep. Each method that records a submission also
 * queues its mail in the same atomic write, so an answered request has both
 * or neither. Two backends: embedded SQLite (default) and Redis.
 */
export interface Store {
  readonly kind: 'sqlite' | 'redis';

  /**
   * Records a subscription request. A new, pending or unsubscribed address gets
   * a fresh confirmation token; a confirmed one is left as is. An address keeps
   * its first unsubscribe token. `mail` builds the message to queue for the
   * state found (or undefined to queue nothing).
   */
  subscribe(input: {
    email: string;
    name?: string;
    confirmTokenHash: string;
    unsubscribeToken: string;
    now: number;
    mail: (previous: SubscriberStatus | undefined, unsubscribeToken: string) => OutgoingMail | undefined;
  }): Promise<void>;
  /** Confirms the subscriber holding this token; returns it, or undefined for an unknown token. */
  confirmSubscriber(confirmTokenHash: string, now: number, mail: (subscriber: Subscriber) => OutgoingMail | undefined): Promise<Subscriber | undefined>;
  unsubscribe(unsubscribeToken: string, now: number): Promise<Subscriber | undefined>;
  subscribers(): Promise<Subscriber[]>;
  subscriber(email: string): Promise<Subscriber | undefined>;

  saveSupportMessage(message: SupportMessage, mails: OutgoingMail[]): Promise<void>;
  supportMessages(): Promise<SupportMessage[]>;

  /** Outbox: claim due mail for `leaseMs` (a crashed sender's claims come back), then settle it. */
  claimDueMail(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  markMailSent(id: string, now: number): Promise<void>;
  retryMailLater(id: string, attempts: number, nextAttemptAt: number, error: string): Promise<void>;
  pendingMailCount(): Promise<number>;

  /** Sets seats aside if confirmed bookings plus unexpired holds leave room for them (one atomic check). */
  holdSeats(hold: Hold, capacity: number, now: number): Promise<boolean>;
  releaseHold(id: string): Promise<void>;
  seatsTaken(product: string, session: string, now: number): Promise<number>;
  /**
   * Records a paid checkout once per Stripe event id: the order, the booking
   * (its hold released), and the receipt mail. A replayed event changes nothing.
   */
  recordPayment(input: { eventId: string; order: Order; booking?: Booking; holdId?: string; mails: OutgoingMail[] }): Promise<'recorded' | 'duplicate'>;
  orders(): Promise<Order[]>;
  booking(id: string): Promise<Booking | undefined>;
  /** Cancels a confirmed booking (freeing its seats) and queues its mail; undefined if it was not confirmed. */
  cancelBooking(id: string, now: number, mails: OutgoingMail[]): Promise<Booking | undefined>;

  /** One cheap round trip to the backend: resolves when it answers (the health check). */
  ping(): Promise<void>;

  setting(key: string): Promise<string | undefined>;
  setSetting(key: string, value: string): Promise<void>;

  close(): Promise<void>;
}
