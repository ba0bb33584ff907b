import { Database } from '@/lib/services/store/sqlite-database';
import { createClient } from 'redis';
import type { Order, SupportMessage } from '@/lib/services/store/types';

/**
 * What a store has kept that the site itself never reads back (support
 * messages, orders, unsent mail), read straight from its SQLite file or its
 * Redis database, so a test can check what was stored.
 */
export type StoredData = {
  supportMessages(): Promise<SupportMessage[]>;
  orders(): Promise<Order[]>;
  /** Mail queued and not sent yet. */
  unsentMailCount(): Promise<number>;
  close(): Promise<void>;
};

export function sqliteStoredData(file: string): StoredData {
  const db = new Database(file, { fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return {
    async supportMessages() {
      return db
        .prepare<[], { id: string; name: string; email: string; subject: string; message: string; created_at: number }>(
          'SELECT * FROM support_messages ORDER BY created_at, id',
        )
        .all()
        .map((row) => ({ id: row.id, name: row.name, email: row.email, subject: row.subject, message: row.message, createdAt: row.created_at }));
    },
    async orders() {
      return db
        .prepare<[], { id: string; product: string; kind: string; amount: number; currency: string; email: string; created_at: number }>(
          'SELECT * FROM orders ORDER BY created_at, id',
        )
        .all()
        .map((row) => ({
          id: row.id,
          product: row.product,
          kind: row.kind,
          amount: row.amount,
          currency: row.currency,
          email: row.email,
          createdAt: row.created_at,
        }));
    },
    async unsentMailCount() {
      return db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM outbox WHERE sent_at IS NULL').get()?.n ?? 0;
    },
    async close() {
      db.close();
    },
  };
}

/** The store's keys in Redis all start with this. */
const NAMESPACE = 'lectern:store:';

export async function redisStoredData(url: string): Promise<StoredData> {
  const client = createClient({ url });
  await client.connect();
  const hashes = async (index: string, prefix: string) =>
    Promise.all((await client.zRange(`${NAMESPACE}${index}`, 0, -1)).map((id) => client.hGetAll(`${NAMESPACE}${prefix}${id}`)));
  return {
    async supportMessages() {
      return (await hashes('support', 'support:')).map((hash) => ({
        id: hash.id ?? '',
        name: hash.name ?? '',
        email: hash.email ?? '',
        subject: hash.subject ?? '',
        message: hash.message ?? '',
        createdAt: Number(hash.created),
      }));
    },
    async orders() {
      return (await hashes('orders', 'order:')).map((hash) => JSON.parse(hash.json ?? '{}') as Order);
    },
    async unsentMailCount() {
      return client.zCard(`${NAMESPACE}outbox`);
    },
    async close() {
      await client.quit();
    },
  };
}
