import path from 'node:path';
import type { Env } from '../../env';
import { connectRedis, REDIS_COMMAND_TIMEOUT_MS, upstashRedis, type RedisConnection } from '../../redis/client';
import { openRedisStore } from './redis';
import { openSqliteStore } from './sqlite';
import type { Store } from './types';

export type * from './types';

/** Where the embedded store and the mail outbox folder live (DATA_DIR, default `.data`). */
export function dataDir(settings: Pick<Env, 'DATA_DIR'>): string {
  return path.resolve(settings.DATA_DIR);
}

/** The store on a Redis connection: Upstash (Redis over HTTP) or a Redis server, the same scripts on both. */
export function openRedisConnectionStore(connection: RedisConnection): Store {
  if (connection.kind === 'upstash') {
    const redis = connection.redis;
    return openRedisStore({ eval: (script, keys, args) => redis.eval(script, keys, args) }, async () => undefined);
  }
  const redis = connection.redis;
  return openRedisStore({ eval: (script, keys, args) => redis.run((client) => client.eval(script, { keys, arguments: args })) }, redis.close);
}

/** The store on Upstash, on a connection of its own. */
export function openUpstashStore(url: string, token: string, timeoutMs = REDIS_COMMAND_TIMEOUT_MS): Store {
  return openRedisConnectionStore({ kind: 'upstash', redis: upstashRedis(url, token, timeoutMs) });
}

/**
 * The store the settings ask for: on `redis` when given (the connection it
 * shares with the rate limiter), else Redis when REDIS_URL or Upstash is
 * configured (each command waits at most `redisTimeoutMs`), else SQLite under DATA_DIR.
 */
export function openStore(
  settings: Pick<Env, 'DATA_DIR' | 'REDIS_URL' | 'UPSTASH_REDIS_REST_URL' | 'UPSTASH_REDIS_REST_TOKEN'>,
  options: { redis?: RedisConnection; redisTimeoutMs?: number } = {},
): Store {
  const connection = options.redis ?? connectRedis(settings, options.redisTimeoutMs);
  return connection ? openRedisConnectionStore(connection) : openSqliteStore(path.join(dataDir(settings), 'lectern.db'));
}
