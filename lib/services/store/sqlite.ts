import fs from 'node:fs';
import path from 'node:path';
import { Database } from './sqlite-database';
import { hashToken } from '../tokens';
import { sqliteBookings } from './bookings/sqlite';
import { sqliteBounces } from './bounces/sqlite';
import { sqliteNewsletter } from './newsletter/sqlite';
import { sqliteOrders } from './orders/sqlite';
import { sqliteMailQueue, sqliteOutbox } from './outbox/sqlite';
import { sqliteSettings } from './settings/sqlite';
import { sqliteSubscribers } from './subscribers/sqlite';
import { sqliteSupport } from './support/sqlite';
import type { Store } from './types';

/**
 * The bookings table as its first migration made it, under a name and with the statuses it
 * accepts: a later migration rebuilds it to accept one more status (SQLite cannot change a
 * CHECK constraint in place). Migrations that ran must not change: a new column is a new
 * migration, not an edit here.
 */
function bookingsTable(name: string, statuses: readonly string[]): string {
  return `CREATE TABLE ${name} (
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
     status TEXT NOT NULL CHECK (status IN (${statuses.map((status) => `'${status}'`).join(', ')})),
     created_at INTEGER NOT NULL,
     cancelled_at INTEGER
   );`;
}

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
   ${bookingsTable('bookings', ['confirmed', 'cancelled'])}
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
  `${bookingsTable('bookings_next', ['confirmed', 'cancelling', 'cancelled'])}
   INSERT INTO bookings_next SELECT id, token_hash, product, session, seats, email, name, payment_intent, amount, currency, status, created_at, cancelled_at FROM bookings;
   DROP TABLE bookings;
   ALTER TABLE bookings_next RENAME TO bookings;
   CREATE INDEX bookings_session ON bookings (product, session, status);
   ALTER TABLE holds ADD COLUMN client TEXT NOT NULL DEFAULT '';
   CREATE INDEX holds_client ON holds (client, expires_at);
   ALTER TABLE webhook_events ADD COLUMN outcome TEXT NOT NULL DEFAULT 'recorded' CHECK (outcome IN ('recorded', 'refusing', 'refunded'));`,
  // When an address was last mailed a confirmation, and how many it was mailed since a window began.
  `ALTER TABLE subscribers ADD COLUMN confirm_mailed_at INTEGER;
   ALTER TABLE subscribers ADD COLUMN confirm_mails INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE subscribers ADD COLUMN confirm_mails_since INTEGER;`,
  // The newsletter: what it did with each published post, each send's mail (stored once), a small row per recipient,
  // and the addresses that refused mail permanently.
  `CREATE TABLE newsletter_posts (
     slug TEXT PRIMARY KEY,
     state TEXT NOT NULL CHECK (state IN ('baseline', 'skipped', 'sending', 'sent')),
     recorded_at INTEGER NOT NULL
   );
   CREATE TABLE newsletter_sends (slug TEXT PRIMARY KEY, mail TEXT NOT NULL, started_at INTEGER NOT NULL, finished_at INTEGER, recipients INTEGER NOT NULL);
   CREATE TABLE newsletter_deliveries (
     slug TEXT NOT NULL,
     email TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('waiting', 'sent', 'failed', 'skipped')),
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     last_error TEXT,
     PRIMARY KEY (slug, email)
   ) WITHOUT ROWID;
   CREATE INDEX newsletter_due ON newsletter_deliveries (slug, next_attempt_at) WHERE status = 'waiting';
   CREATE TABLE newsletter_rejections (email TEXT PRIMARY KEY, count INTEGER NOT NULL, last_error TEXT NOT NULL, last_at INTEGER NOT NULL);`,
  // The claim that holds a newsletter message or an outbox mail (its sender's fencing token).
  `ALTER TABLE newsletter_deliveries ADD COLUMN claim TEXT;
   ALTER TABLE outbox ADD COLUMN claim TEXT;`,
  // What a buyer downloads: an order found by its payment intent (a refund) and by its address (a resend), each
  // download link's count, and each address's last resend.
  `ALTER TABLE orders ADD COLUMN payment_intent TEXT;
   ALTER TABLE orders ADD COLUMN refunded_at INTEGER;
   CREATE INDEX orders_payment_intent ON orders (payment_intent) WHERE payment_intent IS NOT NULL;
   CREATE INDEX orders_email ON orders (email COLLATE NOCASE);
   CREATE TABLE download_counts (link TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID;
   CREATE TABLE resends (email TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID;`,
  // A booking's calendar version (raised by a move) and its reminder: when due, and when queued.
  `ALTER TABLE bookings ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE bookings ADD COLUMN remind_at INTEGER;
   ALTER TABLE bookings ADD COLUMN reminded_at INTEGER;
   CREATE INDEX bookings_reminders ON bookings (remind_at) WHERE remind_at IS NOT NULL AND reminded_at IS NULL;`,
  // What comes back: one bounce token per message sent with a bounce address (VERP), each report once, and form mail
  // that failed for good (refused, bounced, or retried past MAIL_RETRY_DAYS).
  `CREATE TABLE bounce_tokens (token_hash TEXT PRIMARY KEY, email TEXT NOT NULL, slug TEXT, mail_id TEXT, created_at INTEGER NOT NULL);
   CREATE TABLE bounce_events (
     id INTEGER PRIMARY KEY,
     report_id TEXT NOT NULL UNIQUE,
     email TEXT NOT NULL,
     slug TEXT,
     kind TEXT NOT NULL CHECK (kind IN ('hard', 'soft', 'complaint')),
     detail TEXT NOT NULL,
     at INTEGER NOT NULL
   );
   CREATE INDEX bounce_events_email ON bounce_events (email, kind, at);
   ALTER TABLE outbox ADD COLUMN failed_at INTEGER;`,
  // Bounce tokens older than BOUNCE_TOKEN_DAYS are removed as new ones are recorded.
  `CREATE INDEX bounce_tokens_created ON bounce_tokens (created_at);`,
  // When a booking's free cancellation ends, fixed when booked (a move keeps it); what a paid training order bought.
  `ALTER TABLE bookings ADD COLUMN cancel_until INTEGER;
   ALTER TABLE orders ADD COLUMN session TEXT;
   ALTER TABLE orders ADD COLUMN seats INTEGER;`,
];

/** The embedded store: one SQLite file, migrated on opening; each aggregate's writes are transactions on it. */
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

  const queueMail = sqliteMailQueue(db);
  return {
    kind: 'sqlite',
    subscribers: sqliteSubscribers(db, queueMail),
    support: sqliteSupport(db, queueMail),
    outbox: sqliteOutbox(db),
    bookings: sqliteBookings(db, queueMail),
    orders: sqliteOrders(db, queueMail),
    settings: sqliteSettings(db),
    newsletter: sqliteNewsletter(db),
    bounces: sqliteBounces(db),

    async ping() {
      db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get();
    },

    async close() {
      db.close();
    },
  };
}
