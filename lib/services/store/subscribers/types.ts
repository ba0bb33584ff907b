import type { OutgoingMail } from '../outbox/types';

export type SubscriberStatus = 'pending' | 'confirmed' | 'unsubscribed';
export type Subscriber = { email: string; name?: string; status: SubscriberStatus; createdAt: number; confirmedAt?: number };

/** A confirmation token as the store finds it: waiting (issued after the cutoff given), or expired. */
export type ConfirmationState = 'pending' | 'expired';

export interface SubscriberStore {
  /**
   * Records a subscription request. A new, pending or unsubscribed address gets
   * a fresh confirmation token (issued `now`) and `mail` is queued, with the
   * hash of the unsubscribe token it carries; a confirmed address is left as
   * is and mailed nothing. Tokens are only ever stored hashed: every message
   * to a subscriber carries a token of its own, and each of them keeps working.
   */
  subscribe(input: { email: string; name?: string; confirmTokenHash: string; unsubscribeTokenHash: string; now: number; mail: OutgoingMail }): Promise<void>;
  /** What a confirmation token is, changing nothing: undefined for an unknown or used one. */
  confirmationState(confirmTokenHash: string, issuedAfter: number): Promise<ConfirmationState | undefined>;
  /**
   * Confirms the pending subscriber holding this token if it was issued at or
   * after `issuedAfter`; an expired token changes nothing.
   */
  confirm(
    confirmTokenHash: string,
    now: number,
    issuedAfter: number,
  ): Promise<{ state: 'confirmed'; subscriber: Subscriber } | { state: 'expired' } | undefined>;
  /** Unsubscribes the holder of any unsubscribe token mailed to it (idempotent); undefined for an unknown token. */
  unsubscribe(unsubscribeTokenHash: string, now: number): Promise<Subscriber | undefined>;
  /** Every subscriber, oldest first (the owner's export). */
  list(): Promise<Subscriber[]>;
}
