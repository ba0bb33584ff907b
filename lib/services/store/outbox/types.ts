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

/**
 * The mail the other aggregates queue in their own writes. Due mail is claimed
 * for `leaseMs` (a crashed sender's claims come back), then settled.
 */
export interface OutboxStore {
  claimDue(now: number, limit: number, leaseMs: number): Promise<OutboxEntry[]>;
  markSent(id: string, now: number): Promise<void>;
  retryLater(id: string, attempts: number, nextAttemptAt: number, error: string): Promise<void>;
  /** Gives back claims a sender stopping will not send, due at `now`, so another sender takes them without waiting out the lease; sent mail is left alone. */
  release(ids: readonly string[], now: number): Promise<void>;
  /** Deletes mail sent before `sentBefore` (bodies, links and all); unsent mail stays. Returns how many went. */
  purgeSent(sentBefore: number): Promise<number>;
}
