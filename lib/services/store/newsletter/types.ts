/** What the newsletter has done with a published post: nothing to send (already live at the first run, or `newsletter: false`), or its send. */
export type NewsletterPostState = 'baseline' | 'skipped' | 'sending' | 'sent';

/** One send as the operator sees it: counts, never addresses. */
export type NewsletterSend = {
  slug: string;
  state: 'sending' | 'sent';
  startedAt: number;
  finishedAt?: number;
  recipients: number;
  sent: number;
  /** Not settled yet: due, in flight, or waiting for a retry. */
  waiting: number;
  failed: number;
  /** Unsubscribed (or no longer confirmed) before their mail left. */
  skipped: number;
};

/**
 * A claimed message: the recipient, the unsubscribe token (hashed here) recorded for the mail it
 * gets, and the claim that holds it (the fencing token: its sender's owner id and an id of its own,
 * given at the claim). Only the claim that holds a message renews, settles or gives it back: once
 * its lease lapses and another sender claims it, the first sender's writes change nothing.
 */
export type NewsletterDelivery = { slug: string; email: string; name?: string; attempts: number; unsubscribeTokenHash: string; claim: string };

/** A message as its sender holds it: the address, and the claim it was given. */
export type HeldMessage = { email: string; claim: string };

/** An address that refused mail permanently (5xx); at SUSPEND_AFTER_REJECTIONS it gets no more sends. */
export type NewsletterRejection = { email: string; count: number; lastError: string; at: number; suspended: boolean };

export const SUSPEND_AFTER_REJECTIONS = 2;

export interface NewsletterStore {
  /**
   * The first run's record of the posts already published, which are never
   * mailed. Writes only when no baseline exists; true when this call made it.
   */
  recordBaseline(slugs: readonly string[], now: number): Promise<boolean>;
  /** Which of `slugs` are recorded (baseline, skipped or sent); undefined before the baseline. */
  recorded(slugs: readonly string[]): Promise<Set<string> | undefined>;
  /** A post that is not mailed (`newsletter: false`); a post already recorded is left as it is. */
  recordSkipped(slug: string, now: number): Promise<void>;
  /**
   * Starts the send of a post once ever: the audience (confirmed now, not
   * suspended) is fixed as one row per recipient, and the rendered mail is
   * stored once. `started: false` when the post was already recorded.
   */
  startSend(input: { slug: string; mail: string; now: number }): Promise<{ started: boolean; recipients: number }>;
  /** The slugs of the sends not finished, oldest first. */
  activeSends(): Promise<string[]>;
  /** The rendered mail stored by startSend. */
  sendMail(slug: string): Promise<string | undefined>;
  /**
   * Claims up to `tokenHashes.length` due messages of a send for `leaseMs`
   * under `claim` (a crashed sender's claims come back when the lease ends);
   * each gets one of the unsubscribe token hashes, recorded for its address.
   * A recipient who is no longer confirmed is settled as skipped instead.
   */
  claim(input: { slug: string; now: number; leaseMs: number; tokenHashes: readonly string[]; claim: string }): Promise<NewsletterDelivery[]>;
  /** Extends the lease of the messages `claim` still holds to `now + leaseMs` (the sender's heartbeat); the addresses it still holds. */
  renew(input: { slug: string; claim: string; emails: readonly string[]; now: number; leaseMs: number }): Promise<string[]>;
  /**
   * The last look at a claimed message before it is handed to SMTP: true
   * while it is still waiting, `claim` still holds it (its lease then runs
   * from `now` again) and its address is confirmed. An address no longer
   * confirmed (unsubscribed since the claim) has the message settled as
   * skipped; a message settled or claimed by another sender meanwhile is not
   * to be sent.
   */
  stillWanted(input: { slug: string; email: string; claim: string; now: number; leaseMs: number }): Promise<boolean>;
  /**
   * Settles messages as sent, each only while the claim given with it still holds it (several at
   * once: one write for the messages that finished together); the addresses not settled (their
   * claim was lost: another sender took the message, or it was settled already).
   */
  markSent(slug: string, messages: readonly HeldMessage[], now: number): Promise<string[]>;
  /** Due again at `nextAttemptAt` (and no longer claimed), while `claim` holds it. */
  retryLater(input: { slug: string; email: string; claim: string; attempts: number; nextAttemptAt: number; error: string }): Promise<void>;
  /**
   * Settles a message as failed while `claim` holds it. A permanent rejection
   * counts against the address; returns the address's count of permanent rejections.
   */
  markFailed(input: { slug: string; email: string; claim: string; attempts: number; now: number; error: string; permanent: boolean }): Promise<number>;
  /** Gives back the messages `claim` holds and its sender will not start (it is stopping): due at `now`, for any sender. */
  release(input: { slug: string; claim: string; emails: readonly string[]; now: number }): Promise<void>;
  /** Marks a send finished when nothing of it is waiting; its counts when this call finished it. */
  finish(slug: string, now: number): Promise<NewsletterSend | undefined>;
  /** Every send, oldest first, with its counts. */
  sends(): Promise<NewsletterSend[]>;
  rejections(): Promise<NewsletterRejection[]>;
  /** Puts a send's failed recipients (not suspended ones) back in its queue, due `now`; how many. */
  retryFailed(slug: string, now: number): Promise<number>;
}
