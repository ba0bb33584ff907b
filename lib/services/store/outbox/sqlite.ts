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
  const extend = db.prepare('UPDATE outbox SET next_attempt_at = ? WHERE id = ? AND sent_at IS NULL AND claim = ?');
  return {
    async claimDue({ now, limit, leaseMs, claim }) {
      return db.transaction(() => {
        const rows = db
          .prepare<[number, number], { id: string; mail: string; attempts: number; created_at: number }>(
            'SELECT id, mail, attempts, created_at FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?',
          )
          .all(now, limit);
        const lease = db.prepare('UPDATE outbox SET next_attempt_at = ?, claim = ? WHERE id = ?');
        for (const row of rows) lease.run(now + leaseMs, claim, row.id);
        return rows.map((row): OutboxEntry => ({
          id: row.id,
          mail: JSON.parse(row.mail) as OutgoingMail,
          attempts: row.attempts,
          claim,
          createdAt: row.created_at,
        }));
      })();
    },

    async renew({ ids, claim, now, leaseMs }) {
      return db.transaction(() => ids.filter((id) => extend.run(now + leaseMs, id, claim).changes > 0))();
    },

    async markSent({ id, claim, now }) {
      return (
        db.prepare('UPDATE outbox SET sent_at = ?, last_error = NULL, claim = NULL WHERE id = ? AND sent_at IS NULL AND claim = ?').run(now, id, claim)
          .changes > 0
      );
    },

    async retryLater({ id, claim, attempts, nextAttemptAt, error }) {
      db.prepare('UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ?, claim = NULL WHERE id = ? AND sent_at IS NULL AND claim = ?').run(
        attempts,
        nextAttemptAt,
        error.slice(0, 500),
        id,
        claim,
      );
    },

    async markFailed({ id, claim, attempts, now, error }) {
      db.prepare('UPDATE outbox SET attempts = ?, failed_at = ?, last_error = ?, claim = NULL WHERE id = ? AND sent_at IS NULL AND claim = ?').run(
        attempts,
        now,
        error.slice(0, 500),
        id,
        claim,
      );
    },

    async release({ ids, claim, now }) {
      const give = db.prepare('UPDATE outbox SET next_attempt_at = ?, claim = NULL WHERE id = ? AND sent_at IS NULL AND claim = ?');
      db.transaction(() => ids.forEach((id) => give.run(now, id, claim)))();
    },

    async purgeSent(sentBefore) {
      return db.prepare('DELETE FROM outbox WHERE sent_at < ? OR failed_at < ?').run(sentBefore, sentBefore).changes;
    },
  };
}
