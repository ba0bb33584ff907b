import type { Database } from '../sqlite-database';
import { SUSPEND_AFTER_REJECTIONS } from '../newsletter/types';
import { BOUNCE_TOKEN_MS, type AddressBounce, type BounceKind, type BounceStore, type SendBounces } from './types';

export function sqliteBounces(db: Database): BounceStore {
  const suspend = db.prepare(
    `INSERT INTO newsletter_rejections (email, count, last_error, last_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (email) DO UPDATE SET count = MAX(count, excluded.count), last_error = excluded.last_error, last_at = excluded.last_at`,
  );
  return {
    async issue(targets, now) {
      const insert = db.prepare('INSERT OR IGNORE INTO bounce_tokens (token_hash, email, slug, mail_id, created_at) VALUES (?, ?, ?, ?, ?)');
      db.transaction(() => {
        targets.forEach((target) => insert.run(target.tokenHash, target.email, target.slug ?? null, target.mailId ?? null, now));
        db.prepare('DELETE FROM bounce_tokens WHERE created_at < ?').run(now - BOUNCE_TOKEN_MS);
      })();
    },

    async record({ tokenHash, reportId, kind, detail, now, soft }) {
      return db
        .transaction(() => {
          const target = db
            .prepare<[string], { email: string; slug: string | null; mail_id: string | null }>(
              'SELECT email, slug, mail_id FROM bounce_tokens WHERE token_hash = ?',
            )
            .get(tokenHash);
          if (!target) return { matched: false as const };
          const { email } = target;
          const named = { matched: true as const, email, ...(target.slug ? { slug: target.slug } : {}) };
          const text = detail.slice(0, 500);
          const inserted = db
            .prepare('INSERT OR IGNORE INTO bounce_events (report_id, email, slug, kind, detail, at) VALUES (?, ?, ?, ?, ?, ?)')
            .run(reportId, email, target.slug, kind, text, now);
          if (inserted.changes === 0) return { ...named, action: 'duplicate' as const };
          if (kind === 'complaint') {
            db.prepare(
              `UPDATE subscribers SET status = 'unsubscribed', confirm_token_hash = NULL, confirm_token_at = NULL, updated_at = ? WHERE email = ?`,
            ).run(now, email);
            return { ...named, action: 'unsubscribed' as const };
          }
          if (kind === 'hard') {
            suspend.run(email, SUSPEND_AFTER_REJECTIONS, `hard bounce: ${text}`, now);
            if (target.mail_id) db.prepare('UPDATE outbox SET failed_at = ?, last_error = ? WHERE id = ?').run(now, `hard bounce: ${text}`, target.mail_id);
            return { ...named, action: 'suspended' as const };
          }
          const { n } = db
            .prepare<[string, number], { n: number }>(`SELECT COUNT(*) AS n FROM bounce_events WHERE email = ? AND kind = 'soft' AND at > ?`)
            .get(email, now - soft.windowMs) ?? { n: 0 };
          if (n < soft.limit) return { ...named, action: 'counted' as const };
          suspend.run(email, SUSPEND_AFTER_REJECTIONS, `${n} soft bounces: ${text}`, now);
          return { ...named, action: 'suspended' as const };
        })
        .immediate();
    },

    async sendCounts() {
      const rows = db
        .prepare<[], { slug: string; kind: BounceKind; n: number }>(
          'SELECT slug, kind, COUNT(*) AS n FROM bounce_events WHERE slug IS NOT NULL GROUP BY slug, kind',
        )
        .all();
      const counts: Record<string, SendBounces> = {};
      for (const { slug, kind, n } of rows) {
        const entry = (counts[slug] ??= { hard: 0, soft: 0, complaints: 0 });
        if (kind === 'complaint') entry.complaints = n;
        else entry[kind] = n;
      }
      return counts;
    },

    async lastByAddress() {
      return db
        .prepare<[], AddressBounce>(
          `SELECT email, kind, detail, at FROM bounce_events e WHERE id = (SELECT MAX(id) FROM bounce_events WHERE email = e.email) ORDER BY at, email`,
        )
        .all()
        .map((row) => ({ email: row.email, kind: row.kind, detail: row.detail, at: row.at }));
    },
  };
}
