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

/**
 * `cancelling` is recorded before the refund is asked of Stripe, so a refund
 * that fails, or a store that fails after it, leaves a booking that a repeated
 * cancellation finishes (the refund's idempotency key makes it one refund).
 * Its seats stay taken until it is `cancelled`.
 */
export type BookingStatus = 'confirmed' | 'cancelling' | 'cancelled';
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

/** Seats set aside while a buyer is on Stripe's checkout page; `client` is the buyer's limit key (IPv4 address or IPv6 /64). */
export type Hold = { id: string; client: string; product: string; session: string; seats: number; expiresAt: number };

/** What a hold may take: the session's seats, and the seats one client may hold at once across every session. */
export type HoldLimits = { capacity: number; perClient: number };

/**
 * `held` with the hold as stored (`fresh` false when this id was already held:
 * a repeated checkout attempt holds its seats once), or why nothing was held.
 */
export type HoldOutcome = { held: Hold; fresh: boolean } | { refused: 'session-full' | 'client-limit' };

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

  /**
   * Sets seats aside, in one atomic check, if bookings plus unexpired holds
   * leave room for them in the session and the client's unexpired holds
   * across every session stay within `perClient`. An unexpired hold of the
   * same id is answered as held and counted once.
   */
  holdSeats(hold: Hold, limits: HoldLimits, now: number): Promise<HoldOutcome>;
  releaseHold(id: string): Promise<void>;
  seatsTaken(product: string, session: string, now: number): Promise<number>;
  /** Seats a client holds in unexpired holds, across every session. */
  seatsHeldBy(client: string, now: number): Promise<number>;
  /**
   * Records a paid checkout once per Stripe event id: the order, the booking
   * (its hold released), and the receipt mail. A replayed event changes
   * nothing. A booking is recorded only if it still fits `capacity` beside the
   * other bookings and unexpired holds (its own hold counts as its own);
   * otherwise the answer is `full`, nothing but the event's refusal is kept,
   * and the payment is to be refunded, then settled with `recordRefund`
   * (a replay of the event is `full` again until then).
   */
  recordPayment(input: { eventId: string; order: Order; booking?: Booking; capacity?: number; holdId?: string; mails: OutgoingMail[] }): Promise<'recorded' | 'duplicate' | 'full'>;
  /** Settles a payment refused as `full` once its refund is made, queueing its mail; `duplicate` when already settled. */
  recordRefund(input: { eventId: string; now: number; mails: OutgoingMail[] }): Promise<'recorded' | 'duplicate'>;
  orders(): Promise<Order[]>;
  booking(id: string): Promise<Booking | undefined>;
  /** Records the intent to cancel before the refund: confirmed becomes cancelling; a cancelling booking is returned as is; otherwise undefined. */
  beginCancellation(id: string): Promise<Booking | undefined>;
  /** Finishes a cancelling booking (freeing its seats) and queues its mail; undefined if it was not cancelling. */
  cancelBooking(id: string, now: number, mails: OutgoingMail[]): Promise<Booking | undefined>;

  /** One cheap round trip to the backend: resolves when it answers (the health check). */
  ping(): Promise<void>;

  setting(key: string): Promise<string | undefined>;
  setSetting(key: string, value: string): Promise<void>;

  close(): Promise<void>;
}
