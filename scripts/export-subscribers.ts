/**
 * Writes the subscriber list as CSV to standard output, from the store the
 * server uses (same DATA_DIR / REDIS_URL). `--confirmed` keeps confirmed ones only.
 *   npm run subscribers:csv -- --confirmed > subscribers.csv
 */
import { subscribersCsv } from '../lib/forms/subscribers-csv';
import { openStore } from '../lib/services/store';

const confirmedOnly = process.argv.includes('--confirmed');
// A whole list may take Redis longer than a request is allowed to wait.
const store = openStore({ redisTimeoutMs: 60_000 });
const all = await store.subscribers();
process.stdout.write(subscribersCsv(confirmedOnly ? all.filter((subscriber) => subscriber.status === 'confirmed') : all));
await store.close();
