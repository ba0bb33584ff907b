import type { Database } from '../sqlite-database';
import type { QueueMail } from '../outbox/sqlite';
import type { Subscriber, SubscriberStatus, SubscriberStore } from './types';

type SubscriberRow = { email: string; name: string | null; status: SubscriberStatus; created_at: number; confirmed_at: number | null };
const SUBSCRIBER_COLUMNS = 'email, name, status, created_at, confirmed_at';

function toSubscriber(row: SubscriberRow): Subscriber {
  return {
    email: row.email,
    ...(row.name ? { name: row.name } : {}),
    status: row.status,
    createdAt: row.created_at,
    ...(row.confirmed_at ? { confirmedAt: row.confirmed_at } : {}),
  };
}

export function sqliteSubscribers(db: Database, queueMail: QueueMail): SubscriberStore {
  const selectMailings = db.prepare<
    [string],
    { status: SubscriberStatus; confirm_mailed_at: number | null; confirm_mails: number; confirm_mails_since: number | null }
  >('SELECT status, confirm_mailed_at, confirm_mails, confirm_mails_since FROM subscribers WHERE email = ?');
  const selectPending = db.prepare<[string], SubscriberRow & { confirm_token_at: number }>(
    `SELECT ${SUBSCRIBER_COLUMNS}, confirm_token_at FROM subscribers WHERE confirm_token_hash = ? AND status = 'pending'`,
  );

  return {
    async subscribe({ email, name, confirmTokenHash, unsubscribeTokenHash, now, resend, mail }) {
      return db.transaction(() => {
        const existing = selectMailings.get(email);
        if (existing?.status === 'confirmed') return false;
        const freshWindow = existing?.confirm_mails_since == null || now - existing.confirm_mails_since >= resend.perMs;
        const since = freshWindow ? now : existing.confirm_mails_since!;
        const mails = freshWindow ? 0 : existing.confirm_mails;
        const mailedAt = existing?.confirm_mailed_at;
        if ((mailedAt != null && now - mailedAt < resend.afterMs) || mails >= resend.atMost) return false;
        if (!existing) {
          db.prepare(
            `INSERT INTO subscribers (email, name, status, confirm_token_hash, confirm_token_at, created_at, updated_at)
             VALUES (?, ?, 'pending', ?, ?, ?, ?)`,
          ).run(email, name ?? null, confirmTokenHash, now, now, now);
        } else {
          db.prepare(
            `UPDATE subscribers SET status = 'pending', name = COALESCE(?, name), confirm_token_hash = ?, confirm_token_at = ?, updated_at = ? WHERE email = ?`,
          ).run(name ?? null, confirmTokenHash, now, now, email);
        }
        db.prepare('UPDATE subscribers SET confirm_mailed_at = ?, confirm_mails = ?, confirm_mails_since = ? WHERE email = ?').run(
          now,
          mails + 1,
          since,
          email,
        );
        db.prepare('INSERT INTO unsubscribe_tokens (token_hash, email, created_at) VALUES (?, ?, ?)').run(unsubscribeTokenHash, email, now);
        queueMail(mail, now);
        return true;
      })();
    },

    async confirmationState(confirmTokenHash, issuedAfter) {
      const row = selectPending.get(confirmTokenHash);
      if (!row) return undefined;
      return row.confirm_token_at >= issuedAfter ? 'pending' : 'expired';
    },

    async confirm(confirmTokenHash, now, issuedAfter) {
      return db.transaction(() => {
        const row = selectPending.get(confirmTokenHash);
        if (!row) return undefined;
        if (row.confirm_token_at < issuedAfter) return { state: 'expired' as const };
        db.prepare(
          `UPDATE subscribers SET status = 'confirmed', confirm_token_hash = NULL, confirm_token_at = NULL, confirmed_at = ?, updated_at = ? WHERE email = ?`,
        ).run(now, now, row.email);
        return { state: 'confirmed' as const, subscriber: toSubscriber({ ...row, status: 'confirmed', confirmed_at: now }) };
      })();
    },

    async welcome({ email, unsubscribeTokenHash, now, mail }) {
      return db.transaction(() => {
        const row = db.prepare<[string], { status: SubscriberStatus }>('SELECT status FROM subscribers WHERE email = ?').get(email);
        if (row?.status !== 'confirmed') return false;
        db.prepare('INSERT INTO unsubscribe_tokens (token_hash, email, created_at) VALUES (?, ?, ?)').run(unsubscribeTokenHash, email, now);
        queueMail(mail, now);
        return true;
      })();
    },

    async unsubscribe(unsubscribeTokenHash, now) {
      return db.transaction(() => {
        const row = db
          .prepare<[string], SubscriberRow>(
            `SELECT ${SUBSCRIBER_COLUMNS} FROM subscribers WHERE email = (SELECT email FROM unsubscribe_tokens WHERE token_hash = ?)`,
          )
          .get(unsubscribeTokenHash);
        if (!row) return undefined;
        db.prepare(`UPDATE subscribers SET status = 'unsubscribed', confirm_token_hash = NULL, confirm_token_at = NULL, updated_at = ? WHERE email = ?`).run(
          now,
          row.email,
        );
        return toSubscriber({ ...row, status: 'unsubscribed' });
      })();
    },

    async list() {
      return db.prepare<[], SubscriberRow>(`SELECT ${SUBSCRIBER_COLUMNS} FROM subscribers ORDER BY created_at, email`).all().map(toSubscriber);
    },
  };
}
