/**
 * Moderation of what comes back from the fediverse, on the store the server uses (same DATA_DIR /
 * REDIS_URL):
 *   npm run fediverse -- replies
 *   npm run fediverse -- approve <id>
 *   npm run fediverse -- reject <id>
 */
import { FEDIVERSE_USAGE, parseFediverseCommand, runFediverseCommand } from '../lib/fediverse/moderation';
import { reactionStore } from '../lib/fediverse/reactions';
import { redisFediverseStores } from '../lib/fediverse/redis-stores';
import { sqliteFediverseStores } from '../lib/fediverse/stores';
import { connectRedis, redisEvaluator } from '../lib/redis/client';
import { settings } from '../lib/settings';

const parsed = parseFediverseCommand(process.argv.slice(2));
if (!parsed.ok) {
  process.stderr.write(`${parsed.error}\n${FEDIVERSE_USAGE}\n`);
  process.exit(2);
}
const { redis: redisSettings, store: storeSettings } = settings();
// Listing every reply may take Redis longer than a request is allowed to wait.
const redis = connectRedis(redisSettings, 60_000);
const stores = redis ? redisFediverseStores(redisEvaluator(redis)) : sqliteFediverseStores(storeSettings.dataDir);
const status = await runFediverseCommand(parsed.command, reactionStore(stores.kv), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
});
stores.close();
if (redis?.kind === 'redis') await redis.redis.close();
process.exit(status);
