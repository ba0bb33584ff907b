/**
 * Writes the subscriber list as CSV to standard output, from the store the
 * server uses (same DATA_DIR / REDIS_URL): confirmed subscribers unless asked
 * for more.
 *   npm run subscribers:csv > subscribers.csv
 *   npm run subscribers:csv -- --all            (pending and unsubscribed too)
 *   npm run subscribers:csv -- --status=pending
 */
import { EXPORT_USAGE, exportStatuses, subscribersCsv } from '../lib/subscribers/csv';
import { settings } from '../lib/settings';
import { openStore } from '../lib/services/store';

const wanted = exportStatuses(process.argv.slice(2));
if (!wanted.ok) {
  process.stderr.write(`${wanted.error}\n${EXPORT_USAGE}\n`);
  process.exit(2);
}
// A whole list may take Redis longer than a request is allowed to wait.
const store = openStore(settings(), { redisTimeoutMs: 60_000 });
const [all, rejections, bounces] = await Promise.all([store.subscribers.list(), store.newsletter.rejections(), store.bounces.lastByAddress()]);
const notes = {
  suspended: new Map(rejections.filter((rejection) => rejection.suspended).map((rejection) => [rejection.email, rejection.lastError])),
  lastBounce: new Map(bounces.map((bounce) => [bounce.email, `${bounce.kind === 'complaint' ? 'complaint' : `${bounce.kind} bounce`}: ${bounce.detail}`])),
};
process.stdout.write(
  subscribersCsv(
    all.filter((subscriber) => wanted.statuses.includes(subscriber.status)),
    notes,
  ),
);
await store.close();
