/**
 * The newsletter's commands, on the store the server uses (same DATA_DIR /
 * REDIS_URL) and the content folder it serves (CONTENT_DIR):
 *   npm run newsletter -- status
 *   npm run newsletter -- preview <slug>
 *   npm run newsletter -- test <slug> <address>
 *   npm run newsletter -- retry <slug>
 */
import { NEWSLETTER_USAGE, parseNewsletterCommand, runNewsletterCommand } from '../lib/newsletter/cli';
import { openStore, type Store } from '../lib/services/store';
import { settings } from '../lib/settings';

const parsed = parseNewsletterCommand(process.argv.slice(2));
if (!parsed.ok) {
  process.stderr.write(`${parsed.error}\n${NEWSLETTER_USAGE}\n`);
  process.exit(2);
}
let store: Store | undefined;
// Counting a large send may take Redis longer than a request is allowed to wait.
const opened = () => (store ??= openStore(settings(), { redisTimeoutMs: 60_000 }));
const status = await runNewsletterCommand(parsed.command, settings(), opened, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  interactive: Boolean(process.stdout.isTTY),
});
await store?.close();
process.exit(status);
