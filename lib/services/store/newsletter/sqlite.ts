import type { Database } from '../sqlite-database';
import { SUSPEND_AFTER_REJECTIONS, type NewsletterDelivery, type NewsletterSend, type NewsletterStore } from './types';

/** The settings row whose presence says the first run recorded its baseline. */
const BASELINE_KEY = 'newsletter:baseline';

type SendRow = { slug: string; state: 'sending' | 'sent'; started_at: number; finished_at: number | null; recipients: number };

export function sqliteNewsletter(db: Database): NewsletterStore {
  const counts = db.prepare<[string], { status: string; n: number }>('SELECT status, COUNT(*) AS n FROM newsletter_deliveries WHERE slug = ? GROUP BY status');
  const toSend = (row: SendRow): NewsletterSend => {
    const by = Object.fromEntries(counts.all(row.slug).map(({ status, n }) => [status, n]));
    return {
      slug: row.slug,
      state: row.state,
      startedAt: row.started_at,
      ...(row.finished_at === null ? {} : { finishedAt: row.finished_at }),
      recipients: row.recipients,
      sent: by.sent ?? 0,
      waiting: by.waiting ?? 0,
      failed: by.failed ?? 0,
      skipped: by.skipped ?? 0,
    };
  };
  const SEND_COLUMNS = 's.slug, p.state, s.started_at, s.finished_at, s.recipients';
  const settle = db.prepare(
    `UPDATE newsletter_deliveries SET status = ?, attempts = ?, last_error = ?, claim = NULL WHERE slug = ? AND email = ? AND status = 'waiting'`,
  );
  // A waiting message the claim still holds, extended to the end of a new lease.
  const extend = db.prepare(`UPDATE newsletter_deliveries SET next_attempt_at = ? WHERE slug = ? AND email = ? AND status = 'waiting' AND claim = ?`);

  return {
    async recordBaseline(slugs, now) {
      return db
        .transaction(() => {
          if (db.prepare('SELECT 1 FROM settings WHERE key = ?').get(BASELINE_KEY)) return false;
          db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(BASELINE_KEY, String(now));
          const insert = db.prepare(`INSERT OR IGNORE INTO newsletter_posts (slug, state, recorded_at) VALUES (?, 'baseline', ?)`);
          for (const slug of slugs) insert.run(slug, now);
          return true;
        })
        .immediate();
    },

    async recorded(slugs) {
      if (!db.prepare('SELECT 1 FROM settings WHERE key = ?').get(BASELINE_KEY)) return undefined;
      const known = new Set(
        db
          .prepare<[], { slug: string }>('SELECT slug FROM newsletter_posts')
          .all()
          .map((row) => row.slug),
      );
      return new Set(slugs.filter((slug) => known.has(slug)));
    },

    async recordSkipped(slug, now) {
      db.prepare(`INSERT OR IGNORE INTO newsletter_posts (slug, state, recorded_at) VALUES (?, 'skipped', ?)`).run(slug, now);
    },

    async startSend({ slug, mail, now }) {
      return db
        .transaction(() => {
          if (db.prepare('SELECT 1 FROM newsletter_posts WHERE slug = ?').get(slug)) return { started: false, recipients: 0 };
          db.prepare(`INSERT INTO newsletter_posts (slug, state, recorded_at) VALUES (?, 'sending', ?)`).run(slug, now);
          const { changes } = db
            .prepare(
              `INSERT INTO newsletter_deliveries (slug, email, status, next_attempt_at)
               SELECT ?, email, 'waiting', ? FROM subscribers
               WHERE status = 'confirmed' AND email NOT IN (SELECT email FROM newsletter_rejections WHERE count >= ?)`,
            )
            .run(slug, now, SUSPEND_AFTER_REJECTIONS);
          db.prepare('INSERT INTO newsletter_sends (slug, mail, started_at, recipients) VALUES (?, ?, ?, ?)').run(slug, mail, now, changes);
          return { started: true, recipients: changes };
        })
        .immediate();
    },

    async activeSends() {
      return db
        .prepare<[], { slug: string }>(
          `SELECT s.slug FROM newsletter_sends s JOIN newsletter_posts p USING (slug) WHERE p.state = 'sending' ORDER BY s.started_at, s.slug`,
        )
        .all()
        .map((row) => row.slug);
    },

    async sendMail(slug) {
      return db.prepare<[string], { mail: string }>('SELECT mail FROM newsletter_sends WHERE slug = ?').get(slug)?.mail;
    },

    async claim({ slug, now, leaseMs, tokenHashes, claim }) {
      return db
        .transaction(() => {
          const rows = db
            .prepare<[string, number, number], { email: string; attempts: number; name: string | null; status: string | null }>(
              `SELECT d.email, d.attempts, s.name, s.status FROM newsletter_deliveries d LEFT JOIN subscribers s ON s.email = d.email
               WHERE d.slug = ? AND d.status = 'waiting' AND d.next_attempt_at <= ? ORDER BY d.next_attempt_at LIMIT ?`,
            )
            .all(slug, now, tokenHashes.length);
          const lease = db.prepare('UPDATE newsletter_deliveries SET next_attempt_at = ?, claim = ? WHERE slug = ? AND email = ?');
          const token = db.prepare('INSERT INTO unsubscribe_tokens (token_hash, email, created_at) VALUES (?, ?, ?)');
          const claimed: NewsletterDelivery[] = [];
          for (const row of rows) {
            if (row.status !== 'confirmed') {
              settle.run('skipped', row.attempts, null, slug, row.email);
              continue;
            }
            const unsubscribeTokenHash = tokenHashes[claimed.length] as string;
            lease.run(now + leaseMs, claim, slug, row.email);
            token.run(unsubscribeTokenHash, row.email, now);
            claimed.push({ slug, email: row.email, ...(row.name ? { name: row.name } : {}), attempts: row.attempts, unsubscribeTokenHash, claim });
          }
          return claimed;
        })
        .immediate();
    },

    async renew({ slug, claim, emails, now, leaseMs }) {
      return db.transaction(() => emails.filter((email) => extend.run(now + leaseMs, slug, email, claim).changes > 0))();
    },

    async stillWanted({ slug, email, claim, now, leaseMs }) {
      return db
        .transaction(() => {
          const row = db
            .prepare<[string, string, string], { attempts: number; status: string | null }>(
              `SELECT d.attempts, s.status FROM newsletter_deliveries d LEFT JOIN subscribers s ON s.email = d.email
               WHERE d.slug = ? AND d.email = ? AND d.status = 'waiting' AND d.claim = ?`,
            )
            .get(slug, email, claim);
          if (!row) return false;
          if (row.status === 'confirmed') return extend.run(now + leaseMs, slug, email, claim).changes > 0;
          settle.run('skipped', row.attempts, null, slug, email);
          return false;
        })
        .immediate();
    },

    async markSent(slug, messages) {
      const sent = db.prepare(
        `UPDATE newsletter_deliveries SET status = 'sent', last_error = NULL, claim = NULL WHERE slug = ? AND email = ? AND status = 'waiting' AND claim = ?`,
      );
      return db.transaction(() => messages.filter(({ email, claim }) => sent.run(slug, email, claim).changes === 0).map(({ email }) => email))();
    },

    async retryLater({ slug, email, claim, attempts, nextAttemptAt, error }) {
      db.prepare(
        `UPDATE newsletter_deliveries SET attempts = ?, next_attempt_at = ?, last_error = ?, claim = NULL WHERE slug = ? AND email = ? AND status = 'waiting' AND claim = ?`,
      ).run(attempts, nextAttemptAt, error.slice(0, 500), slug, email, claim);
    },

    async markFailed({ slug, email, claim, attempts, now, error, permanent }) {
      return db
        .transaction(() => {
          const { changes } = db
            .prepare(
              `UPDATE newsletter_deliveries SET status = 'failed', attempts = ?, last_error = ?, claim = NULL
               WHERE slug = ? AND email = ? AND status = 'waiting' AND claim = ?`,
            )
            .run(attempts, error.slice(0, 500), slug, email, claim);
          if (changes > 0 && permanent) {
            db.prepare(
              `INSERT INTO newsletter_rejections (email, count, last_error, last_at) VALUES (?, 1, ?, ?)
               ON CONFLICT (email) DO UPDATE SET count = count + 1, last_error = excluded.last_error, last_at = excluded.last_at`,
            ).run(email, error.slice(0, 500), now);
          }
          return db.prepare<[string], { count: number }>('SELECT count FROM newsletter_rejections WHERE email = ?').get(email)?.count ?? 0;
        })
        .immediate();
    },

    async release({ slug, claim, emails, now }) {
      const give = db.prepare(
        `UPDATE newsletter_deliveries SET next_attempt_at = ?, claim = NULL WHERE slug = ? AND email = ? AND status = 'waiting' AND claim = ?`,
      );
      db.transaction(() => emails.forEach((email) => give.run(now, slug, email, claim)))();
    },

    async finish(slug, now) {
      return db
        .transaction(() => {
          const state = db.prepare<[string], { state: string }>('SELECT state FROM newsletter_posts WHERE slug = ?').get(slug)?.state;
          if (state !== 'sending') return undefined;
          if (db.prepare(`SELECT 1 FROM newsletter_deliveries WHERE slug = ? AND status = 'waiting' LIMIT 1`).get(slug)) return undefined;
          db.prepare(`UPDATE newsletter_posts SET state = 'sent' WHERE slug = ?`).run(slug);
          db.prepare('UPDATE newsletter_sends SET finished_at = ? WHERE slug = ?').run(now, slug);
          const row = db
            .prepare<[string], SendRow>(`SELECT ${SEND_COLUMNS} FROM newsletter_sends s JOIN newsletter_posts p USING (slug) WHERE s.slug = ?`)
            .get(slug);
          return row && toSend(row);
        })
        .immediate();
    },

    async sends() {
      return db
        .prepare<[], SendRow>(`SELECT ${SEND_COLUMNS} FROM newsletter_sends s JOIN newsletter_posts p USING (slug) ORDER BY s.started_at, s.slug`)
        .all()
        .map(toSend);
    },

    async rejections() {
      return db
        .prepare<[], { email: string; count: number; last_error: string; last_at: number }>('SELECT * FROM newsletter_rejections ORDER BY last_at, email')
        .all()
        .map((row) => ({ email: row.email, count: row.count, lastError: row.last_error, at: row.last_at, suspended: row.count >= SUSPEND_AFTER_REJECTIONS }));
    },

    async retryFailed(slug, now) {
      return db
        .transaction(() => {
          const { changes } = db
            .prepare(
              `UPDATE newsletter_deliveries SET status = 'waiting', next_attempt_at = ?, attempts = 0
               WHERE slug = ? AND status = 'failed' AND email NOT IN (SELECT email FROM newsletter_rejections WHERE count >= ?)`,
            )
            .run(now, slug, SUSPEND_AFTER_REJECTIONS);
          if (changes > 0) {
            db.prepare(`UPDATE newsletter_posts SET state = 'sending' WHERE slug = ?`).run(slug);
            db.prepare('UPDATE newsletter_sends SET finished_at = NULL WHERE slug = ?').run(slug);
          }
          return changes;
        })
        .immediate();
    },
  };
}
