import path from 'node:path';
import { Redis as UpstashRedis } from '@upstash/redis';
import { limitsEnv } from '../../limits/env';
import { failFastRedis } from '../redis-client';
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
 * How long the store waits for Redis: a write answers within a second (a 503 when
 * Redis is down or hangs), after the limiter's own wait.
 */
export const STORE_REDIS_TIMEOUT_MS = 500;

/**
 * The store on Upstash (Redis over HTTP): the same scripts as on a Redis server.
 * Replies are taken as Redis gives them: the client's default would parse every
 * string that looks like JSON (a queued mail, a booking) into an object.
 */
export function openUpstashStore(url: string, token: string, timeoutMs = STORE_REDIS_TIMEOUT_MS): Store {
  const redis = new UpstashRedis({ url, token, retry: { retries: 0 }, automaticDeserialization: false, signal: () => AbortSignal.timeout(timeoutMs) });
  return openRedisStore({ eval: (script, keys, args) => redis.eval(script, keys, args) }, async () => undefined);
}

/**
 * A store chosen from the environment: Redis when REDIS_URL or Upstash is
 * configured, else SQLite under DATA_DIR. `redisTimeoutMs` bounds each Redis
 * command (a one-off export may allow more than a request can).
 */
export function openStore(options: { redisTimeoutMs?: number } = {}): Store {
  const timeoutMs = options.redisTimeoutMs ?? STORE_REDIS_TIMEOUT_MS;
  const env = limitsEnv();
  if (env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) {
    return openUpstashStore(env.UPSTASH_REDIS_REST_URL, env.UPSTASH_REDIS_REST_TOKEN, timeoutMs);
  }
  if (env.REDIS_URL) {
    const redis = failFastRedis(env.REDIS_URL, { commandTimeoutMs: timeoutMs });
    return openRedisStore({ eval: (script, keys, args) => redis.run((client) => client.eval(script, { keys, arguments: args })) }, redis.close);
  }
  return openSqliteStore(path.join(dataDir(), 'lectern.db'));
}

/** The process's store, opened once. */
export function store(): Store {
  const holder = globalThis as Holder;
  holder[GLOBAL_KEY] ??= openStore();
  return holder[GLOBAL_KEY];
}
