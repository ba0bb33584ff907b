import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { hashToken } from '../tokens';
import type { Booking, Hold, HoldOutcome, OutboxEntry, OutgoingMail, Store, Subscriber, SubscriberStatus } from './types';

/**
 * Schema changes, applied in order, each once; the version is kept in the file.
 * SQL may call `lectern_hash_token(text)`, the hash tokens are stored as.
 */
export const MIGRATIONS: string[] = [
  `CREATE TABLE subscribers (
     email TEXT PRIMARY KEY,
     name TEXT,
     status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'unsubscribed')),
     confirm_token_hash TEXT UNIQUE,
     unsubscribe_token TEXT NOT NULL UNIQUE,
     created_at INTEGER NOT NULL,
     confirmed_at INTEGER,
     updated_at INTEGER NOT NULL
   );
   CREATE TABLE support_messages (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     email TEXT NOT NULL,
     subject TEXT NOT NULL,
     message TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE outbox (
     id TEXT PRIMARY KEY,
     mail TEXT NOT NULL,
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     sent_at INTEGER,
     last_error TEXT,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE sent_at IS NULL;`,
  `CREATE TABLE orders (
     id TEXT PRIMARY KEY,
     product TEXT NOT NULL,
     kind TEXT NOT NULL,
     amount INTEGER NOT NULL,
     currency TEXT NOT NULL,
     email TEXT NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE TABLE bookings (
     id TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL,
     product TEXT NOT NULL,
     session TEXT NOT NULL,
     seats INTEGER NOT NULL,
     email TEXT NOT NULL,
     name TEXT,
     payment_intent TEXT NOT NULL,
     amount INTEGER NOT NULL,
     currency TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelled')),
     created_at INTEGER NOT NULL,
     cancelled_at INTEGER
   );
   CREATE INDEX bookings_session ON bookings (product, session, status);
   CREATE TABLE holds (
     id TEXT PRIMARY KEY,
     product TEXT NOT NULL,
     session TEXT NOT NULL,
     seats INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   );
   CREATE TABLE webhook_events (id TEXT PRIMARY KEY, received_at INTEGER NOT NULL);
   CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // Unsubscribe tokens kept hashed, one per message that carried one; confirmation tokens dated, so they expire;
  // sent mail found by its age, so it can be purged.
  `CREATE TABLE unsubscribe_tokens (token_hash TEXT PRIMARY KEY, email TEXT NOT NULL, created_at INTEGER NOT NULL);
   INSERT INTO unsubscribe_tokens (token_hash, email, created_at) SELECT lectern_hash_token(unsubscribe_token), email, created_at FROM subscribers;
   CREATE INDEX unsubscribe_tokens_email ON unsubscribe_tokens (email);
   CREATE TABLE subscribers_next (
     email TEXT PRIMARY KEY,
     name TEXT,
     status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'unsubscribed')),
     confirm_token_hash TEXT UNIQUE,
     confirm_token_at INTEGER,
     created_at INTEGER NOT NULL,
     confirmed_at INTEGER,
     updated_at INTEGER NOT NULL
   );
   INSERT INTO subscribers_next (email, name, status, confirm_token_hash, confirm_token_at, created_at, confirmed_at, updated_at)
     SELECT email, name, status, confirm_token_hash, CASE WHEN confirm_token_hash IS NULL THEN NULL ELSE updated_at END, created_at, confirmed_at, updated_at FROM subscribers;
   DROP TABLE subscribers;
   ALTER TABLE subscribers_next RENAME TO subscribers;
   CREATE INDEX outbox_sent ON outbox (sent_at) WHERE sent_at IS NOT NULL;`,
  // A booking's cancellation is recorded before its refund; holds belong to a client; a refused payment is settled after its refund.
  `CREATE TABLE bookings_next (
     id TEXT PRIMARY KEY,
     token_hash TEXT NOT NULL,
     product TEXT NOT NULL,
     session TEXT NOT NULL,
     seats INTEGER NOT NULL,
     email TEXT NOT NULL,
     name TEXT,
     payment_intent TEXT NOT NULL,
     amount INTEGER NOT NULL,
     currency TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelling', 'cancelled')),
     created_at INTEGER NOT NULL,
     cancelled_at INTEGER
   );
   INSERT INTO bookings_next SELECT id, token_hash, product, session, seats, email, name, payment_intent, amount, currency, status, created_at, cancelled_at FROM bookings;
   DROP TABLE bookings;
   ALTER TABLE bookings_next RENAME TO bookings;
   CREATE INDEX bookings_session ON bookings (product, session, status);
   ALTER TABLE holds ADD COLUMN client TEXT NOT NULL DEFAULT '';
   CREATE INDEX holds_client ON holds (client, expires_at);
   ALTER TABLE webhook_events ADD COLUMN outcome TEXT NOT NULL DEFAULT 'recorded' CHECK (outcome IN ('recorded', 'refusing', 'refunded'));`,
];

type BookingRow = {
  id: string;
  token_hash: string;
  product: string;
  session: string;
  seats: number;
  email: string;
  name: string | null;
  payment_intent: string;
  amount: number;
  currency: string;
  status: Booking['status'];
  created_at: number;
  cancelled_at: number | null;
};

function toBooking(row: BookingRow): Booking {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    product: row.product,
    session: row.session,
    seats: row.seats,
    email: row.email,
    ...(row.name ? { name: row.name } : {}),
    paymentIntent: row.payment_intent,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    createdAt: row.created_at,
    ...(row.cancelled_at ? { cancelledAt: row.cancelled_at } : {}),
  };
}

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

export function openSqliteStore(file: string): Store {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  // WAL with full sync: a transaction is on disk when it commits, before any answer is sent.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.function('lectern_hash_token', { deterministic: true }, (token: unknown) => hashToken(String(token)));

  const version = db.pragma('user_version', { simple: true }) as number;
  for (let index = version; index < MIGRATIONS.length; index++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[index] ?? '');
      db.pragma(`user_version = ${index + 1}`);
    })();
  }

  const enqueue = db.prepare('INSERT INTO outbox (id, mail, next_attempt_at, created_at) VALUES (?, ?, ?, ?)');
  const queueMail = (mail: OutgoingMail, now: number) => enqueue.run(randomUUID(), JSON.stringify(mail), now, now);

  // Seats stay taken until a booking is cancelled, so a cancellation waiting for its refund still counts.
  const taken = (product: string, session: string, now: number, exceptHold = ''): number => {
    const booked = db.prepare<[string, string], { n: number | null }>(`SELECT SUM(seats) AS n FROM bookings WHERE product = ? AND session = ? AND status != 'cancelled'`).get(product, session);
    const held = db
      .prepare<[string, string, number, string], { n: number | null }>('SELECT SUM(seats) AS n FROM holds WHERE product = ? AND session = ? AND expires_at > ? AND id != ?')
      .get(product, session, now, exceptHold);
    return (booked?.n ?? 0) + (held?.n ?? 0);
  };
  const heldBy = (client: string, now: number): number =>
    db.prepare<[string, number], { n: number | null }>('SELECT SUM(seats) AS n FROM holds WHERE client = ? AND expires_at > ?').get(client, now)?.n ?? 0;
  type HoldRow = { id: string; client: string; product: string; session: string; seats: number; expires_at: number };
  const toHold = (row: HoldRow): Hold => ({ id: row.id, client: row.client, product: row.product, session: row.session, seats: row.seats, expiresAt: row.expires_at });

  const selectSubscriber = db.prepare<[string], SubscriberRow>(`SELECT ${SUBSCRIBER_COLUMNS} FROM subscribers WHERE email = ?`);
  const selectPending = db.prepare<[string], SubscriberRow & { confirm_token_at: number }>(
    `SELECT ${SUBSCRIBER_COLUMNS}, confirm_token_at FROM subscribers WHERE confirm_token_hash = ? AND status = 'pending'`,
  );

  return {
    kind: 'sqlite',

    async subscribe({ email, name, confirmTokenHash, unsubscribeTokenHash, now, mail }) {
      db.transaction(() => {
        const existing = selectSubscriber.get(email);
        if (!existing) {
          db.prepare(
            `INSERT INTO subscribers (email, name, status, confirm_token_hash, confirm_token_at, created_at, updated_at)
             VALUES (?, ?, 'pending', ?, ?, ?, ?)`,
          ).run(email, name ?? null, confirmTokenHash, now, now, now);
        } else if (existing.status !== 'confirmed') {
          db.prepare(`UPDATE subscribers SET status = 'pending', name = COALESCE(?, name), confirm_token_hash = ?, confirm_token_at = ?, updated_at = ? WHERE email = ?`).run(
            name ?? null,
            confirmTokenHash,
            now,
            now,
            email,
          );
        }
        const message = mail(existing?.status);
        if (message) {
          db.prepare('INSERT INTO unsubscribe_tokens (token_hash, email, created_at) VALUES (?, ?, ?)').run(unsubscribeTokenHash, email, now);
          queueMail(message, now);
        }
      })();
    },

    async confirmationState(confirmTokenHash, issuedAfter) {
      const row = selectPending.get(confirmTokenHash);
      if (!row) return undefined;
      return row.confirm_token_at >= issuedAfter ? 'pending' : 'expired';
    },

    async confirmSubscriber(confirmTokenHash, now, issuedAfter) {
      return db.transaction(() => {
        const row = selectPending.get(confirmTokenHash);
        if (!row) return undefined;
        if (row.confirm_token_at < issuedAfter) return { state: 'expired' as const };
        db.prepare(`UPDATE subscribers SET status = 'confirmed', confirm_token_hash = NULL, confirm_token_at = NULL, confirmed_at = ?, updated_at = ? WHERE email = ?`).run(
          now,
          now,
          row.email,
        );
        return { state: 'confirmed' as const, subscriber: toSubscriber({ ...row, status: 'confirmed', confirmed_at: now }) };
      })();
    },

    async unsubscribe(unsubscribeTokenHash, now) {
      return db.transaction(() => {
        const row = db
          .prepare<[string], SubscriberRow>(`SELECT ${SUBSCRIBER_COLUMNS} FROM subscribers WHERE email = (SELECT email FROM unsubscribe_tokens WHERE token_hash = ?)`)
          .get(unsubscribeTokenHash);
        if (!row) return undefined;
        db.prepare(`UPDATE subscribers SET status = 'unsubscribed', confirm_token_hash = NULL, confirm_token_at = NULL, updated_at = ? WHERE email = ?`).run(now, row.email);
        return toSubscriber({ ...row, status: 'unsubscribed' });
      })();
    },

    async subscribers() {
      return db.prepare<[], SubscriberRow>(`SELECT ${SUBSCRIBER_COLUMNS} FROM subscribers ORDER BY created_at, email`).all().map(toSubscriber);
    },

    async subscriber(email) {
      const row = selectSubscriber.get(email);
      return row ? toSubscriber(row) : undefined;
    },

    async saveSupportMessage(message, mails) {
      db.transaction(() => {
        db.prepare('INSERT INTO support_messages (id, name, email, subject, message, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
          message.id,
          message.name,
          message.email,
          message.subject,
          message.message,
          message.createdAt,
        );
        for (const mail of mails) queueMail(mail, message.createdAt);
      })();
    },

    async supportMessages() {
      return db
        .prepare<[], { id: string; name: string; email: string; subject: string; message: string; created_at: number }>('SELECT * FROM support_messages ORDER BY created_at, id')
        .all()
        .map((row) => ({ id: row.id, name: row.name, email: row.email, subject: row.subject, message: row.message, createdAt: row.created_at }));
    },

    async claimDueMail(now, limit, leaseMs) {
      return db.transaction(() => {
        const rows = db
          .prepare<[number, number], { id: string; mail: string; attempts: number }>('SELECT id, mail, attempts FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?')
          .all(now, limit);
        const lease = db.prepare('UPDATE outbox SET next_attempt_at = ? WHERE id = ?');
        for (const row of rows) lease.run(now + leaseMs, row.id);
        return rows.map((row): OutboxEntry => ({ id: row.id, mail: JSON.parse(row.mail) as OutgoingMail, attempts: row.attempts }));
      })();
    },

    async markMailSent(id, now) {
      db.prepare('UPDATE outbox SET sent_at = ?, last_error = NULL WHERE id = ?').run(now, id);
    },

    async retryMailLater(id, attempts, nextAttemptAt, error) {
      db.prepare('UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?').run(attempts, nextAttemptAt, error.slice(0, 500), id);
    },

    async pendingMailCount() {
      return (db.prepare('SELECT COUNT(*) AS n FROM outbox WHERE sent_at IS NULL').get() as { n: number }).n;
    },

    async purgeSentMail(sentBefore) {
      return db.prepare('DELETE FROM outbox WHERE sent_at IS NOT NULL AND sent_at < ?').run(sentBefore).changes;
    },

    async holdSeats(hold, { capacity, perClient }, now) {
      return db.transaction((): HoldOutcome => {
        const existing = db.prepare<[string, number], HoldRow>('SELECT * FROM holds WHERE id = ? AND expires_at > ?').get(hold.id, now);
        if (existing) return { held: toHold(existing), fresh: false };
        if (taken(hold.product, hold.session, now, hold.id) + hold.seats > capacity) return { refused: 'session-full' };
        if (heldBy(hold.client, now) + hold.seats > perClient) return { refused: 'client-limit' };
        db.prepare('INSERT OR REPLACE INTO holds (id, client, product, session, seats, expires_at) VALUES (?, ?, ?, ?, ?, ?)').run(
          hold.id,
          hold.client,
          hold.product,
          hold.session,
          hold.seats,
          hold.expiresAt,
        );
        return { held: hold, fresh: true };
      })();
    },

    async releaseHold(id) {
      db.prepare('DELETE FROM holds WHERE id = ?').run(id);
    },

    async seatsTaken(product, session, now) {
      return taken(product, session, now);
    },

    async seatsHeldBy(client, now) {
      return heldBy(client, now);
    },

    async recordPayment({ eventId, order, booking, capacity, holdId, mails }) {
      return db.transaction(() => {
        const seen = db.prepare<[string], { outcome: string }>('SELECT outcome FROM webhook_events WHERE id = ?').get(eventId);
        if (seen) return seen.outcome === 'refusing' ? ('full' as const) : ('duplicate' as const);
        if (booking && capacity !== undefined && taken(booking.product, booking.session, order.createdAt, holdId) + booking.seats > capacity) {
          db.prepare(`INSERT INTO webhook_events (id, received_at, outcome) VALUES (?, ?, 'refusing')`).run(eventId, order.createdAt);
          return 'full' as const;
        }
        db.prepare('INSERT INTO webhook_events (id, received_at) VALUES (?, ?)').run(eventId, order.createdAt);
        db.prepare('INSERT OR IGNORE INTO orders (id, product, kind, amount, currency, email, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          order.id,
          order.product,
          order.kind,
          order.amount,
          order.currency,
          order.email,
          order.createdAt,
        );
        if (booking) {
          db.prepare(
            `INSERT INTO bookings (id, token_hash, product, session, seats, email, name, payment_intent, amount, currency, status, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'confirmed', ?)`,
          ).run(booking.id, booking.tokenHash, booking.product, booking.session, booking.seats, booking.email, booking.name ?? null, booking.paymentIntent, booking.amount, booking.currency, booking.createdAt);
        }
        if (holdId) db.prepare('DELETE FROM holds WHERE id = ?').run(holdId);
        for (const mail of mails) queueMail(mail, order.createdAt);
        return 'recorded' as const;
      })();
    },

    async recordRefund({ eventId, now, mails }) {
      return db.transaction(() => {
        if (db.prepare(`UPDATE webhook_events SET outcome = 'refunded' WHERE id = ? AND outcome = 'refusing'`).run(eventId).changes === 0) return 'duplicate' as const;
        for (const mail of mails) queueMail(mail, now);
        return 'recorded' as const;
      })();
    },

    async orders() {
      return db
        .prepare<[], { id: string; product: string; kind: string; amount: number; currency: string; email: string; created_at: number }>('SELECT * FROM orders ORDER BY created_at, id')
        .all()
        .map((row) => ({ id: row.id, product: row.product, kind: row.kind, amount: row.amount, currency: row.currency, email: row.email, createdAt: row.created_at }));
    },

    async booking(id) {
      const row = db.prepare<[string], BookingRow>('SELECT * FROM bookings WHERE id = ?').get(id);
      return row ? toBooking(row) : undefined;
    },

    async beginCancellation(id) {
      return db.transaction(() => {
        db.prepare(`UPDATE bookings SET status = 'cancelling' WHERE id = ? AND status = 'confirmed'`).run(id);
        const row = db.prepare<[string], BookingRow>(`SELECT * FROM bookings WHERE id = ? AND status = 'cancelling'`).get(id);
        return row ? toBooking(row) : undefined;
      })();
    },

    async cancelBooking(id, now, mails) {
      return db.transaction(() => {
        if (db.prepare(`UPDATE bookings SET status = 'cancelled', cancelled_at = ? WHERE id = ? AND status = 'cancelling'`).run(now, id).changes === 0) return undefined;
        for (const mail of mails) queueMail(mail, now);
        const row = db.prepare<[string], BookingRow>('SELECT * FROM bookings WHERE id = ?').get(id);
        return row ? toBooking(row) : undefined;
      })();
    },

    async ping() {
      db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    },

    async setting(key) {
      return (db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(key) ?? undefined)?.value;
    },

    async setSetting(key, value) {
      db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
    },

    async close() {
      db.close();
    },
  };
}
