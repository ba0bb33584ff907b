/**
 * What came back about a message: a hard bounce (a 5.x.x delivery status), a
 * soft one (4.x.x), or a complaint (a feedback-loop report: the reader pressed
 * "spam").
 */
export type BounceKind = 'hard' | 'soft' | 'complaint';

/** Whom a bounce token names: the address a message went to, and the send (`slug`) or outbox mail (`mailId`) it belonged to. */
export type BounceTarget = { tokenHash: string; email: string; slug?: string; mailId?: string };

/**
 * How long a bounce token is kept after its message was sent: bounces come within days and
 * complaints within weeks; a report about an older message matches nothing (it is logged and kept).
 */
export const BOUNCE_TOKEN_DAYS = 90;
export const BOUNCE_TOKEN_MS = BOUNCE_TOKEN_DAYS * 24 * 60 * 60 * 1000;

/** Soft bounces that suspend an address: `limit` of them within `windowMs`. */
export type SoftBouncePolicy = { limit: number; windowMs: number };

/**
 * What recording a bounce did: nothing (`matched: false`, no message has
 * this token), or, for the address it names: suspended (a hard bounce, or the
 * soft bounce that reached the limit), counted (a soft bounce under the
 * limit), unsubscribed (a complaint), or nothing again (`duplicate`: this
 * report was recorded before).
 */
export type BounceOutcome =
  { matched: false } | { matched: true; email: string; slug?: string; action: 'suspended' | 'counted' | 'unsubscribed' | 'duplicate' };

/** Per send: the hard and soft bounces and complaints its messages drew. */
export type SendBounces = { hard: number; soft: number; complaints: number };

/** An address's last bounce or complaint, as the operator reads it. */
export type AddressBounce = { email: string; kind: BounceKind; detail: string; at: number };

export interface BounceStore {
  /**
   * Records the bounce tokens of messages about to be sent (each token is the VERP part of one
   * message's envelope sender), each kept BOUNCE_TOKEN_DAYS: SQLite removes older ones as it
   * records new ones, Redis lets each expire.
   */
  issue(targets: readonly BounceTarget[], now: number): Promise<void>;
  /**
   * Records one report about the message holding `tokenHash`, once per
   * `reportId` (the same report read twice changes nothing), and acts on it in
   * the same write: a hard bounce suspends the address from the newsletter
   * at once and, for an outbox mail, records that mail failed; a soft bounce
   * suspends it once `soft.limit` of them fall within `soft.windowMs`; a
   * complaint unsubscribes it.
   */
  record(input: { tokenHash: string; reportId: string; kind: BounceKind; detail: string; now: number; soft: SoftBouncePolicy }): Promise<BounceOutcome>;
  /** Bounces and complaints per send, by slug. */
  sendCounts(): Promise<Record<string, SendBounces>>;
  /** Each address's last bounce or complaint. */
  lastByAddress(): Promise<AddressBounce[]>;
}
