/**
 * Writes the subscriber list as CSV to standard output, from the store the
 * server uses (same DATA_DIR / REDIS_URL). `--confirmed` keeps confirmed ones only.
 *   npm run subscribers:csv -- --confirmed > subscribers.csv
 */
import { subscribersCsv } from '../lib/forms/subscribers-csv';
import { store } from '../lib/services/store';

const confirmedOnly = process.argv.includes('--confirmed');
const all = await store().subscribers();
process.stdout.write(subscribersCsv(confirmedOnly ? all.filter((subscriber) => subscriber.status === 'confirmed') : all));
await store().close();
