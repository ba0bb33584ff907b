import type { Order } from '../bookings/types';
import type { OutgoingMail } from '../outbox/types';

/** What a download link's check found: the order it belongs to, or why it gives nothing. */
export type LinkUse = { outcome: 'ok'; order: Order } | { outcome: 'used-up' | 'refunded' | 'unknown' };

/** Paid orders after they are recorded (lib/services/store/bookings records them): their download links, refunds and resends. */
export interface OrderStore {
  /**
   * One download by a link, checked and counted in one atomic step: `unknown` when no such
   * order was recorded, `refunded` once its payment is refunded, `used-up` when the link has
   * given `limit` downloads. `count` false (a resumed download) counts nothing and is refused
   * only past the limit. `expires` is when the link stops working, after which its count may go.
   */
  useLink(input: { order: string; link: string; limit: number; count: boolean; expires: number }): Promise<LinkUse>;
  /** The paid order of this id (a Stripe Checkout Session id); undefined when none was recorded or it was refunded. */
  find(id: string): Promise<Order | undefined>;
  /** Marks the order paid by this payment intent refunded (its links stop working); its id, or undefined when no order has it. */
  refund(paymentIntent: string, now: number): Promise<string | undefined>;
  /** The orders paid from an address (any case), oldest first, refunded ones left out. */
  paidBy(email: string): Promise<Order[]>;
  /**
   * Takes an address's resend turn: when its last one was at least `cooldownMs` ago (or never),
   * queues `mails` and answers true, in one write; otherwise changes nothing and answers false.
   */
  claimResend(input: { email: string; now: number; cooldownMs: number; mails: OutgoingMail[] }): Promise<boolean>;
}
