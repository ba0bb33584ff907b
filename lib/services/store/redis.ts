import { hashToken } from '../tokens';
import { redisBookings } from './bookings/redis';
import { redisBounces } from './bounces/redis';
import { scriptRunner, type Evaluator, type ScriptRunner } from '../../redis/lua';
import { redisNewsletter } from './newsletter/redis';
import { redisOrders } from './orders/redis';
import { redisOutbox } from './outbox/redis';
import { PING, SCHEMA_VERSION, SET_SCHEMA_VERSION, UPGRADE_SCAN, UPGRADE_TOKEN } from './redis-scripts';
import { redisSettings } from './settings/redis';
import { redisSubscribers } from './subscribers/redis';
import { redisSupport } from './support/redis';
import type { Store } from './types';

/** Every key of the store starts with this. */
const NAMESPACE = 'lectern:store:';
const CURRENT_SCHEMA = '2';

/** The one-time upgrade of older data (idempotent, safe to run from several instances at once). */
async function upgrade(run: ScriptRunner): Promise<void> {
  if ((await run(SCHEMA_VERSION, { keys: { schema: 'schema' } })) === CURRENT_SCHEMA) return;
  let cursor = '0';
  do {
    const [next, raw] = (await run(UPGRADE_SCAN, {
      keys: { namespace: '', subscriberPrefix: 'subscriber:', mailPrefix: 'mail:', sent: 'sent' },
      args: { cursor },
    })) as [string, string[]];
    for (const token of raw) {
      await run(UPGRADE_TOKEN, {
        keys: { rawToken: `unsubscribe-token:${token}`, hashedToken: `unsubscribe-token:${hashToken(token)}`, subscriberPrefix: 'subscriber:' },
      });
    }
    cursor = String(next);
  } while (cursor !== '0');
  await run(SET_SCHEMA_VERSION, { keys: { schema: 'schema' }, args: { version: CURRENT_SCHEMA } });
}

/**
 * The store on Redis, for deployments without a disk or with several
 * instances. Every operation is one Lua script, so each is atomic and the
 * store needs nothing of its client but `eval` (node-redis and Upstash alike).
 */
export function openRedisStore(redis: Evaluator, close: () => Promise<void>): Store {
  const run = scriptRunner(redis, NAMESPACE);
  // Once per process, before the first operation that reads what it upgrades; tried again after a failure.
  let upgrading: Promise<void> | undefined;
  const upgraded = () =>
    (upgrading ??= upgrade(run).catch((error: unknown) => {
      upgrading = undefined;
      throw error;
    }));

  return {
    kind: 'redis',
    subscribers: redisSubscribers(run, upgraded),
    support: redisSupport(run),
    outbox: redisOutbox(run, upgraded),
    bookings: redisBookings(run),
    orders: redisOrders(run),
    settings: redisSettings(run),
    newsletter: redisNewsletter(run),
    bounces: redisBounces(run),

    async ping() {
      await run(PING, {});
    },

    close,
  };
}
