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

  close(): Promise<void>;
}
