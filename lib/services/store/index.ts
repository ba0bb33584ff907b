import path from 'node:path';
import type { Settings } from '../../settings';
import { connectRedis, REDIS_COMMAND_TIMEOUT_MS, redisEvaluator, upstashRedis, type RedisConnection } from '../../redis/client';
import { openRedisStore } from './redis';
import { openSqliteStore } from './sqlite';
import type { Store } from './types';

export type * from './types';

/** The store on a Redis connection: Upstash (Redis over HTTP) or a Redis server, the same scripts on both. */
export function openRedisConnectionStore(connection: RedisConnection): Store {
  return openRedisStore(redisEvaluator(connection), connection.kind === 'upstash' ? async () => undefined : connection.redis.close);
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
export function openStore(settings: Pick<Settings, 'store' | 'redis'>, options: { redis?: RedisConnection; redisTimeoutMs?: number } = {}): Store {
  const connection = options.redis ?? connectRedis(settings.redis, options.redisTimeoutMs);
  return connection ? openRedisConnectionStore(connection) : openSqliteStore(path.join(settings.store.dataDir, 'lectern.db'));
}
