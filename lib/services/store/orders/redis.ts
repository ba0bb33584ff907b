import type { ScriptRunner } from '../../../redis/lua';
import { mailArgs } from '../outbox/redis';
import type { Order } from '../bookings/types';
import { CLAIM_RESEND, PAID_BY, PAID_ORDER, REFUND_ORDER, USE_LINK } from './redis-scripts';
import type { OrderStore } from './types';

/** Keys of an address's orders and resend turn: the address in lower case. */
const ordersOfKey = (email: string) => `orders-of:${email.toLowerCase()}`;

export function redisOrders(run: ScriptRunner): OrderStore {
  return {
    async useLink({ order, link, limit, count, expires }) {
      const [outcome, json] = (await run(USE_LINK, {
        keys: { orderEntry: `order:${order}`, linkCount: `downloads:${link}` },
        args: { limit, count: count ? '1' : '0', expires },
      })) as [string, string?];
      if (outcome === 'ok' && json) return { outcome: 'ok', order: JSON.parse(json) as Order };
      return { outcome: outcome === 'refunded' || outcome === 'used-up' ? outcome : 'unknown' };
    },

    async find(id) {
      const json = await run(PAID_ORDER, { keys: { orderEntry: `order:${id}` } });
      return typeof json === 'string' ? (JSON.parse(json) as Order) : undefined;
    },

    async refund(paymentIntent, now) {
      const id = await run(REFUND_ORDER, { keys: { orderIntent: `order-intent:${paymentIntent}`, orderPrefix: 'order:' }, args: { now } });
      return typeof id === 'string' ? id : undefined;
    },

    async paidBy(email) {
      const found = (await run(PAID_BY, { keys: { ordersOf: ordersOfKey(email), orderPrefix: 'order:' } })) as string[];
      return found.map((json) => JSON.parse(json) as Order);
    },

    async claimResend({ email, now, cooldownMs, mails }) {
      const taken = await run(CLAIM_RESEND, {
        keys: { resend: `resend:${email.toLowerCase()}`, mailPrefix: 'mail:', outbox: 'outbox' },
        args: { now, cooldownMs, ...mailArgs(mails) },
      });
      return Number(taken) === 1;
    },
  };
}
