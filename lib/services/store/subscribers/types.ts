import type { OutgoingMail } from '../outbox/types';

export type SubscriberStatus = 'pending' | 'confirmed' | 'unsubscribed';
export type Subscriber = { email: string; name?: string; status: SubscriberStatus; createdAt: number; confirmedAt?: number };

/** A confirmation token as the store finds it: waiting (issued after the cutoff given), or expired. */
export type ConfirmationState = 'pending' | 'expired';

/**
 * How often one address may be mailed a confirmation, whoever asks: once per `afterMs`, and at
 * most `atMost` times in a window of `perMs` (which starts at the first mail past the last window).
 */
export type ConfirmationResend = { afterMs: number; atMost: number; perMs: number };

export interface SubscriberStore {
  /**
   * Records a subscription request. A new, pending or unsubscribed address gets
   * a fresh confirmation token (issued `now`) and `mail` is queued, with the
   * hash of the unsubscribe token it carries, unless `resend` says the address
   * was mailed too recently or too often: then nothing changes (a pending
   * address keeps the link it was mailed). A confirmed address is left as is
   * and mailed nothing. Tokens are only ever stored hashed: every message to a
   * subscriber carries a token of its own, and each of them keeps working.
   * Resolves to whether a mail was queued.
   */
  subscribe(input: {
    email: string;
    name?: string;
    confirmTokenHash: string;
    unsubscribeTokenHash: string;
    now: number;
    resend: ConfirmationResend;
    mail: OutgoingMail;
  }): Promise<boolean>;
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
  /**
   * Queues `mail` (the welcome mail, after a confirmation) to a confirmed address, with the hash of
   * the unsubscribe token it carries; nothing for an address not confirmed (it left meanwhile).
   * Resolves to whether it was queued.
   */
  welcome(input: { email: string; unsubscribeTokenHash: string; now: number; mail: OutgoingMail }): Promise<boolean>;
  /** Unsubscribes the holder of any unsubscribe token mailed to it (idempotent); undefined for an unknown token. */
  unsubscribe(unsubscribeTokenHash: string, now: number): Promise<Subscriber | undefined>;
  /** Every subscriber, oldest first (the owner's export). */
  list(): Promise<Subscriber[]>;
}
