import path from 'node:path';
import { Database } from '@/lib/services/store/sqlite-database';
import { createClient } from 'redis';
import type { SubscriberStore } from '@/lib/services/store/types';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';
import type { ReceivedMail } from './smtp';

/** The newsletter's mail as the contract tests find it at the SMTP server, and the subscribers they seed. */

/**
 * When the fixture's future-post (dated 2999-01-01) goes live: a date without a time is midnight in
 * the site's time zone, the fixture's America/New_York (UTC-5 in January). A server whose clock is
 * set past it (LECTERN_CLOCK_OFFSET_MS) finds the post published and mails it.
 */
export const FUTURE_POST_DUE = Date.parse('2999-01-01T00:00:00-05:00');

export const header = (mail: ReceivedMail, name: string) => mail.headers.find((entry) => entry.key === name)?.value;
export const newsletterMail = (mail: ReceivedMail) => header(mail, 'list-id') !== undefined && !mail.subject?.startsWith('Confirm');

/** Confirmed subscribers written straight into a store, as many as a test needs. */
export function seedSqlite(dataDir: string, emails: string[]) {
  const db = new Database(path.join(dataDir, 'lectern.db'));
  const insert = db.prepare(`INSERT INTO subscribers (email, status, created_at, confirmed_at, updated_at) VALUES (?, 'confirmed', 1, 1, 1)`);
  db.transaction(() => emails.forEach((email) => insert.run(email)))();
  db.close();
}

/** Confirmed subscribers written straight into a Redis store. */
export async function seedRedis(url: string, emails: string[]) {
  const client = createClient({ url });
  await client.connect();
  for (const email of emails) {
    await client.hSet(`lectern:store:subscriber:${email}`, { email, status: 'confirmed', created: '1', confirmed: '1', updated: '1' });
    await client.zAdd('lectern:store:subscribers', { score: 1, value: email });
  }
  await client.quit();
}

/** Each address's copies of each subject: more than one only for a message in flight at a crash, then with one Message-ID. */
export function copies(messages: ReceivedMail[]) {
  const byKey = new Map<string, Set<string>>();
  const counts = new Map<string, number>();
  for (const mail of messages.filter(newsletterMail)) {
    const key = `${mail.subject} ${mail.envelopeTo.join()}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    byKey.set(key, (byKey.get(key) ?? new Set()).add(mail.messageId ?? ''));
  }
  return { counts, messageIds: byKey };
}

/** A reader subscribed and confirmed through the store's own calls, at `now`. */
export async function confirmedReader(subscribers: Pick<SubscriberStore, 'subscribe' | 'confirm'>, email: string, now: number): Promise<void> {
  await subscribers.subscribe({
    email,
    confirmTokenHash: `c-${email}`,
    unsubscribeTokenHash: `u-${email}`,
    resend: CONFIRMATION_RESEND,
    now,
    mail: { to: { address: email }, subject: 'c', text: 't', html: 'h' },
  });
  await subscribers.confirm(`c-${email}`, now, 0);
}
