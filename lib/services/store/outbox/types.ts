/** An image sent inside a message (an inline part its HTML shows as `cid:<cid>`), its bytes in base64. */
export type InlineImage = { cid: string; filename: string; contentType: string; content: string; width: number; height: number };

/** An email waiting in the outbox: everything needed to send it, so nothing depends on memory. */
export type OutgoingMail = {
  to: { name?: string; address: string };
  replyTo?: { name?: string; address: string };
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
  /** Files sent with the message, as text (a booking's calendar file). */
  attachments?: MailAttachment[];
  /** Images its HTML shows from inside the message (the newsletter's SVG diagrams, as PNG). */
  images?: InlineImage[];
};

/**
 * A message handed to the transport: a stored one, or one whose plain-text and HTML parts come
 * already encoded (each a whole MIME part, headers and quoted-printable body: the newsletter encodes
 * a post once per send and only each reader's links per message, lib/newsletter/mail.ts).
 */
export type SendableMail = OutgoingMail | (Omit<OutgoingMail, 'text' | 'html'> & { encoded: { text: Buffer; html: Buffer } });

/** A text file attached to a mail: its name, its type and its content. */
export type MailAttachment = { filename: string; contentType: string; content: string };

/** A claimed mail, with the claim that holds it (its sender's fencing token: owner and an id of its own). */
export type OutboxEntry = { id: string; mail: OutgoingMail; attempts: number; claim: string; /** When it was queued. */ createdAt: number };

/**
 * The mail the other aggregates queue in their own writes. Due mail is claimed
 * for `leaseMs` under a claim (a crashed sender's claims come back), then
 * settled; only the claim that holds a mail renews, settles or gives it back.
 */
export interface OutboxStore {
  claimDue(input: { now: number; limit: number; leaseMs: number; claim: string }): Promise<OutboxEntry[]>;
  /** Extends the lease of the mail `claim` still holds to `now + leaseMs` (a heartbeat, and the look before sending); the ids it still holds. */
  renew(input: { ids: readonly string[]; claim: string; now: number; leaseMs: number }): Promise<string[]>;
  /** Marks a mail sent while `claim` holds it; false when the claim was lost (another sender took it, or it was settled). */
  markSent(input: { id: string; claim: string; now: number }): Promise<boolean>;
  /** Due again at `nextAttemptAt` (and no longer claimed), while `claim` holds it. */
  retryLater(input: { id: string; claim: string; attempts: number; nextAttemptAt: number; error: string }): Promise<void>;
  /**
   * Settles a mail as failed for good while `claim` holds it (refused permanently, or retried for too
   * long): it is never tried again, and goes with the sent mail once older than the retention.
   */
  markFailed(input: { id: string; claim: string; attempts: number; now: number; error: string }): Promise<void>;
  /** Gives back claims a sender stopping will not send, due at `now`, so another sender takes them without waiting out the lease; mail sent or claimed by another is left alone. */
  release(input: { ids: readonly string[]; claim: string; now: number }): Promise<void>;
  /** Deletes mail sent before `sentBefore` (bodies, links and all); unsent mail stays. Returns how many went. */
  purgeSent(sentBefore: number): Promise<number>;
}
