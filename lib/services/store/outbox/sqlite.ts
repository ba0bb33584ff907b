import { randomUUID } from 'node:crypto';
import type { Database } from '../sqlite-database';
import type { OutboxEntry, OutboxStore, OutgoingMail } from './types';

/** Queues a mail inside the caller's transaction, due at once. */
export type QueueMail = (mail: OutgoingMail, now: number) => void;

export function sqliteMailQueue(db: Database): QueueMail {
  const enqueue = db.prepare('INSERT INTO outbox (id, mail, next_attempt_at, created_at) VALUES (?, ?, ?, ?)');
  return (mail, now) => void enqueue.run(randomUUID(), JSON.stringify(mail), now, now);
}

export function sqliteOutbox(db: Database): OutboxStore {
  return {
    async claimDue(now, limit, leaseMs) {
      return db.transaction(() => {
        const rows = db
          .prepare<[number, number], { id: string; mail: string; attempts: number }>(
            'SELECT id, mail, attempts FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?',
          )
          .all(now, limit);
        const lease = db.prepare('UPDATE outbox SET next_attempt_at = ? WHERE id = ?');
        for (const row of rows) lease.run(now + leaseMs, row.id);
        return rows.map((row): OutboxEntry => ({ id: row.id, mail: JSON.parse(row.mail) as OutgoingMail, attempts: row.attempts }));
      })();
    },

    async markSent(id, now) {
      db.prepare('UPDATE outbox SET sent_at = ?, last_error = NULL WHERE id = ?').run(now, id);
    },

    async retryLater(id, attempts, nextAttemptAt, error) {
      db.prepare('UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?').run(attempts, nextAttemptAt, error.slice(0, 500), id);
    },

    async release(ids, now) {
      const give = db.prepare('UPDATE outbox SET next_attempt_at = ? WHERE id = ? AND sent_at IS NULL');
      db.transaction(() => ids.forEach((id) => give.run(now, id)))();
    },

    async purgeSent(sentBefore) {
      return db.prepare('DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < ?').run(sentBefore).changes;
    },
  };
}
