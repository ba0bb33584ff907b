import type { Database } from '../sqlite-database';
import type { QueueMail } from '../outbox/sqlite';
import type { Order } from '../bookings/types';
import type { OrderStore } from './types';

type OrderRow = {
  id: string;
  product: string;
  kind: string;
  amount: number;
  currency: string;
  email: string;
  created_at: number;
  payment_intent: string | null;
  refunded_at: number | null;
  session: string | null;
  seats: number | null;
};

const toOrder = (row: OrderRow): Order => ({
  id: row.id,
  product: row.product,
  kind: row.kind,
  amount: row.amount,
  currency: row.currency,
  email: row.email,
  createdAt: row.created_at,
  ...(row.payment_intent ? { paymentIntent: row.payment_intent } : {}),
  ...(row.session ? { session: row.session } : {}),
  ...(row.seats !== null ? { seats: row.seats } : {}),
});

export function sqliteOrders(db: Database, queueMail: QueueMail): OrderStore {
  const selectOrder = db.prepare<[string], OrderRow>('SELECT * FROM orders WHERE id = ?');
  const selectCount = db.prepare<[string], { count: number }>('SELECT count FROM download_counts WHERE link = ?');
  const countOne = db.prepare<[string]>('INSERT INTO download_counts (link, count) VALUES (?, 1) ON CONFLICT (link) DO UPDATE SET count = count + 1');
  return {
    async useLink({ order, link, limit, count }) {
      return db.transaction(() => {
        const row = selectOrder.get(order);
        if (!row) return { outcome: 'unknown' as const };
        if (row.refunded_at !== null) return { outcome: 'refunded' as const };
        const used = selectCount.get(link)?.count ?? 0;
        if (count ? used >= limit : used > limit) return { outcome: 'used-up' as const };
        if (count) countOne.run(link);
        return { outcome: 'ok' as const, order: toOrder(row) };
      })();
    },

    async find(id) {
      const row = selectOrder.get(id);
      return row && row.refunded_at === null ? toOrder(row) : undefined;
    },

    async refund(paymentIntent, now) {
      return db.transaction(() => {
        const row = db.prepare<[string], { id: string }>('SELECT id FROM orders WHERE payment_intent = ?').get(paymentIntent);
        if (!row) return undefined;
        db.prepare('UPDATE orders SET refunded_at = ? WHERE id = ? AND refunded_at IS NULL').run(now, row.id);
        return row.id;
      })();
    },

    async paidBy(email) {
      return db
        .prepare<[string], OrderRow>('SELECT * FROM orders WHERE email = ? COLLATE NOCASE AND refunded_at IS NULL ORDER BY created_at, id')
        .all(email)
        .map(toOrder);
    },

    async claimResend({ email, now, cooldownMs, mails }) {
      return db.transaction(() => {
        const key = email.toLowerCase();
        const last = db.prepare<[string], { at: number }>('SELECT at FROM resends WHERE email = ?').get(key);
        if (last && now - last.at < cooldownMs) return false;
        db.prepare('INSERT INTO resends (email, at) VALUES (?, ?) ON CONFLICT (email) DO UPDATE SET at = excluded.at').run(key, now);
        for (const mail of mails) queueMail(mail, now);
        return true;
      })();
    },
  };
}
