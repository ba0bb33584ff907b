import type { OutgoingMail } from '../outbox/types';

/** A paid checkout; `paymentIntent` finds it again when Stripe reports a refund. */
export type Order = {
  id: string;
  product: string;
  kind: string;
  amount: number;
  currency: string;
  email: string;
  createdAt: number;
  paymentIntent?: string;
  /** A training order's session and seats, as bought (absent on orders recorded before they were kept). */
  session?: string;
  seats?: number;
};

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
  /**
   * When free cancellation ends: fixed when booked (CANCELLATION_NOTICE_DAYS before the session
   * first booked) and kept by every move, so a move never reopens a refund. Absent on bookings
   * made before it was kept: their current session's deadline.
   */
  cancelUntil?: number;
  /** Raised by every move: the calendar file's SEQUENCE (absent: 0, as booked). */
  sequence?: number;
  /** When its reminder is due (absent: none, e.g. booked after that time); set anew by a move. */
  remindAt?: number;
  /** When its reminder was queued (at most once per session the booking is in). */
  remindedAt?: number;
};

/** A move's outcome: done; refused, the new session has too few free seats; or the booking is no longer what the move was asked of (cancelled, or moved meanwhile). */
export type MoveOutcome = 'moved' | 'full' | 'changed';

/** Seats set aside while a buyer is on Stripe's checkout page; `client` is the buyer's limit key (IPv4 address or IPv6 /64). */
export type Hold = { id: string; client: string; product: string; session: string; seats: number; expiresAt: number };

/** What a hold may take: the session's seats, and the seats one client may hold at once across every session. */
export type HoldLimits = { capacity: number; perClient: number };

/**
 * `held` with the hold as stored (`fresh` false when this id was already held:
 * a repeated checkout attempt holds its seats once), or why nothing was held.
 */
export type HoldOutcome = { held: Hold; fresh: boolean } | { refused: 'session-full' | 'client-limit' };

/** Seats of a training's sessions: holds during checkout, paid orders and the bookings they make, cancellations. */
export interface BookingStore {
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
  recordPayment(input: {
    eventId: string;
    order: Order;
    booking?: Booking;
    capacity?: number;
    holdId?: string;
    mails: OutgoingMail[];
  }): Promise<'recorded' | 'duplicate' | 'full'>;
  /** Settles a payment refused as `full` once its refund is made, queueing its mail; `duplicate` when already settled. */
  recordRefund(input: { eventId: string; now: number; mails: OutgoingMail[] }): Promise<'recorded' | 'duplicate'>;
  find(id: string): Promise<Booking | undefined>;
  /** Records the intent to cancel before the refund: confirmed becomes cancelling; a cancelling booking is returned as is; otherwise undefined. */
  beginCancellation(id: string): Promise<Booking | undefined>;
  /** Finishes a cancelling booking (freeing its seats) and queues its mail; undefined if it was not cancelling. */
  cancel(id: string, now: number, mails: OutgoingMail[]): Promise<Booking | undefined>;
  /**
   * Moves a confirmed booking, in one atomic step, from session `from` to `to` of its product:
   * only while it is still in `from` at `sequence` (two moves of one booking: the second is
   * `changed`), and only if its seats fit `capacity` in `to` beside that session's bookings and
   * unexpired holds (otherwise `full`, nothing changed). The seats are taken in `to` and freed in
   * `from`, the sequence raised by one, the reminder set to `remindAt` (none when undefined) and
   * the mails queued, all together. `cancelUntil` is the free-cancellation deadline the booking
   * keeps: set only on a booking that has none yet (one made before it was recorded), so a move
   * never opens a refund the booking's first session had closed.
   */
  move(input: {
    id: string;
    from: string;
    to: string;
    sequence: number;
    capacity: number;
    cancelUntil: number;
    remindAt?: number;
    now: number;
    mails: OutgoingMail[];
  }): Promise<MoveOutcome>;
  /** Confirmed bookings whose reminder is due at `now` and not queued yet, soonest first, at most `limit`. */
  dueReminders(now: number, limit: number): Promise<Booking[]>;
  /**
   * Queues a booking's reminder mails once, in one atomic step with marking it reminded: true
   * when queued now; false when it was queued already (by this or another instance), or the
   * booking was cancelled or moved since it was read (its `remindAt` is another).
   */
  recordReminder(input: { id: string; remindAt: number; now: number; mails: OutgoingMail[] }): Promise<boolean>;
}
