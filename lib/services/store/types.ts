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
export type Subscriber = { email: string; name?: string; status: SubscriberStatus; createdAt: number; confirmedAt?: number };

/** A confirmation token as the store finds it: waiting (issued after the cutoff given), or expired. */
export type ConfirmationState = 'pending' | 'expired';

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
   * a fresh confirmation token (issued `now`); a confirmed one is left as is.
   * `mail` builds the message to queue for the state found (or undefined to
   * queue nothing); the unsubscribe token that message carries is kept, as a
   * hash, with it. Tokens are only ever stored hashed: every message to a
   * subscriber carries a token of its own, and each of them keeps working.
   */
  subscribe(input: {
    email: string;
    name?: string;
    confirmTokenHash: string;
    unsubscribeTokenHash: string;
    now: number;
    mail: (previous: SubscriberStatus | undefined) => OutgoingMail | undefined;
  }): Promise<void>;
  /** What a confirmation token is, changing nothing: undefined for an unknown or used one. */
  confirmationState(confirmTokenHash: string, issuedAfter: number): Promise<ConfirmationState | undefined>;
  /**
   * Confirms the pending subscriber holding this token if it was issued at or
   * after `issuedAfter`; an expired token changes nothing.
   */
  confirmSubscriber(confirmTokenHash: string, now: number, issuedAfter: number): Promise<{ state: 'confirmed'; subscriber: Subscriber } | { state: 'expired' } | undefined>;
  /** Unsubscribes the holder of any unsubscribe token mailed to it (idempotent); undefined for an unknown token. */
  unsubscribe(unsubscribeTokenHash: string, now: number): Promise<Subscriber | undefined>;
  subscribers(): Promise<Subscriber[]>;
  subscriber(email: string): Promise<Subscriber | undefined>;

  saveSupportMessage(message: SupportMessage, mails: OutgoingMail[]): Promise<void>;
  supportMessages(): Promise<SupportMessage[]>;

  /** Outbox: claim due mail for `leaseMs` (a crashed sender's claims come back), then settle it. */
  claimDueMail(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  markMailSent(id: string, now: number): Promise<void>;
  retryMailLater(id: string, attempts: number, nextAttemptAt: number, error: string): Promise<void>;
  pendingMailCount(): Promise<number>;
  /** Deletes mail sent before `sentBefore` (bodies, links and all); unsent mail stays. Returns how many went. */
  purgeSentMail(sentBefore: number): Promise<number>;

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

  setting(key: string): Promise<string | undefined>;
  setSetting(key: string, value: string): Promise<void>;

  close(): Promise<void>;
}
