// Store writes through the real store API of the tree it runs in (its lib/services/store/sqlite.ts,
// on that tree's runtime): `subscribers.subscribe` for N new addresses (each queues its confirmation
// mail, as the form does), then the outbox emptied as the mail worker empties it (`outbox.claimDue`
// of 20, `markSent` for each). Prints one JSON line: per operation, the count, ops/s and p50/p99.
// Run by bench/store.mjs inside each tree: node --import tsx <this file> --subscribers=N --dir=D
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const options = Object.fromEntries(
  process.argv
    .slice(2)
    .filter((arg) => arg.startsWith('--'))
    .map((arg) => arg.slice(2).split('=')),
);
const SUBSCRIBERS = Number(options.subscribers ?? 2000);
const BATCH = 20;
const dir = fs.mkdtempSync(path.join(options.dir, 'store-'));
const { openSqliteStore } = await import(pathToFileURL(path.resolve('lib/services/store/sqlite.ts')).href);

/** The SQLite library this tree's store uses, and its version. */
async function sqliteVersion(file) {
  if (fs.existsSync(path.resolve('lib/services/store/sqlite-database.ts'))) {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(file);
    const version = db.prepare('select sqlite_version() as v').get().v;
    db.close();
    return { library: 'node:sqlite', version };
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  const version = db.prepare('select sqlite_version() as v').get().v;
  db.close();
  return { library: `better-sqlite3 ${JSON.parse(fs.readFileSync(path.resolve('node_modules/better-sqlite3/package.json'), 'utf8')).version}`, version };
}

function summary(samples, seconds) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return { ops: sorted.length, seconds, opsPerSecond: sorted.length / seconds, p50Ms: at(50), p99Ms: at(99) };
}

const file = path.join(dir, 'lectern.db');
const store = openSqliteStore(file);
const mail = (index) => ({
  to: { name: 'Reader', address: `reader${index}@example.com` },
  subject: 'Confirm your subscription',
  text: `Confirm: http://localhost:3000/newsletter/confirm?token=c${index}`,
  html: `<p><a href="http://localhost:3000/newsletter/confirm?token=c${index}">Confirm</a></p>`,
});
const RESEND = { afterMs: 60 * 60 * 1000, atMost: 3, perMs: 24 * 60 * 60 * 1000 };
try {
  const subscribe = [];
  let started = performance.now();
  for (let index = 0; index < SUBSCRIBERS; index += 1) {
    const t = performance.now();
    await store.subscribers.subscribe({
      email: `reader${index}@example.com`,
      name: 'Reader',
      confirmTokenHash: `c${index}`.padStart(64, '0'),
      unsubscribeTokenHash: `u${index}`.padStart(64, '0'),
      now: 1000 + index,
      resend: RESEND,
      mail: mail(index),
    });
    subscribe.push(performance.now() - t);
  }
  const subscribeSeconds = (performance.now() - started) / 1000;

  const claim = [];
  const markSent = [];
  let sent = 0;
  const now = 10_000_000;
  started = performance.now();
  for (;;) {
    let t = performance.now();
    const due = await store.outbox.claimDue(now, BATCH, 60_000);
    claim.push(performance.now() - t);
    if (due.length === 0) break;
    for (const entry of due) {
      t = performance.now();
      await store.outbox.markSent(entry.id, now);
      markSent.push(performance.now() - t);
      sent += 1;
    }
  }
  const outboxSeconds = (performance.now() - started) / 1000;
  if (sent !== SUBSCRIBERS) throw new Error(`the outbox gave ${sent} mails for ${SUBSCRIBERS} subscribers`);
  await store.close();
  const claimSeconds = claim.reduce((sum, ms) => sum + ms, 0) / 1000;
  const markSeconds = markSent.reduce((sum, ms) => sum + ms, 0) / 1000;
  console.log(
    JSON.stringify({
      node: process.version,
      sqlite: await sqliteVersion(file),
      subscribers: SUBSCRIBERS,
      batch: BATCH,
      subscribe: summary(subscribe, subscribeSeconds),
      claimDue: summary(claim, claimSeconds),
      markSent: summary(markSent, markSeconds),
      // The outbox emptied: mails settled per second, claims and marks together.
      outbox: { mails: sent, seconds: outboxSeconds, mailsPerSecond: sent / outboxSeconds },
    }),
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
