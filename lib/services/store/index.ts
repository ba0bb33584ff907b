import path from 'node:path';
import { Redis as UpstashRedis } from '@upstash/redis';
import { createClient } from 'redis';
import { limitsEnv } from '../../limits';
import { openRedisStore } from './redis';
import { openSqliteStore } from './sqlite';
import type { Store } from './types';

export type * from './types';

const GLOBAL_KEY = Symbol.for('lectern.store');
type Holder = { [GLOBAL_KEY]?: Store };

/** Where the embedded store and the mail outbox folder live (default `.data`). */
export function dataDir(): string {
  return path.resolve(process.env.DATA_DIR || '.data');
}

/**
 * The store on Upstash (Redis over HTTP): the same scripts as on a Redis server.
 * Replies are taken as Redis gives them: the client's default would parse every
 * string that looks like JSON (a queued mail, a booking) into an object.
 */
export function openUpstashStore(url: string, token: string): Store {
  const redis = new UpstashRedis({ url, token, retry: { retries: 0 }, automaticDeserialization: false });
  return openRedisStore({ eval: (script, keys, args) => redis.eval(script, keys, args) }, async () => undefined);
}

/** The process's store: Redis when REDIS_URL or Upstash is configured, else SQLite under DATA_DIR. */
export function store(): Store {
  const holder = globalThis as Holder;
  if (!holder[GLOBAL_KEY]) {
    const env = limitsEnv();
    if (env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) {
      holder[GLOBAL_KEY] = openUpstashStore(env.UPSTASH_REDIS_REST_URL, env.UPSTASH_REDIS_REST_TOKEN);
    } else if (env.REDIS_URL) {
      const client = createClient({ url: env.REDIS_URL, socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) } });
      client.on('error', () => undefined);
      const connecting = client.connect();
      holder[GLOBAL_KEY] = openRedisStore(
        {
          eval: async (script, keys, args) => {
            await connecting;
            return client.eval(script, { keys, arguments: args });
          },
        },
        async () => void (await client.quit().catch(() => client.destroy())),
      );
    } else {
      holder[GLOBAL_KEY] = openSqliteStore(path.join(dataDir(), 'lectern.db'));
    }
  }
  return holder[GLOBAL_KEY];
}
