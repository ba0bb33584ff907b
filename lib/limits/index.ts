import type { Redis as UpstashRedis } from '@upstash/redis';
import type { Settings } from '../settings';
import { failFastRedis, upstashRedis, type FailFastRedis, type RedisConnection } from '../redis/client';
import { memoryLimiter, slidingWindowLimiter, withFallback, type Limiter, type WindowOptions } from './limiter';
import { scriptWindowCounter } from './window-counters';
import { withTimeout } from '../timeout';

export type { LimitDecision, Limiter } from './limiter';

type LimiterOptions = WindowOptions & { timeoutMs: number };

/** The sliding window on a Redis server through node-redis: fails fast while disconnected, each decision waits at most `timeoutMs`. */
export function redisClientLimiter(redis: FailFastRedis, options: LimiterOptions): Limiter {
  const counter = scriptWindowCounter((source, keys, args) => redis.run((client) => client.eval(source, { keys, arguments: args }), options.timeoutMs));
  return slidingWindowLimiter('redis', counter, options);
}

/** A Redis server at `url`, on a connection of its own. */
export function redisServerLimiter(url: string, options: LimiterOptions): Limiter & { close: () => Promise<void> } {
  const redis = failFastRedis(url, { commandTimeoutMs: options.timeoutMs });
  return { ...redisClientLimiter(redis, options), close: redis.close };
}

/** The sliding window on Upstash; each decision waits at most `timeoutMs`. */
export function upstashClientLimiter(redis: UpstashRedis, options: LimiterOptions): Limiter {
  const counter = scriptWindowCounter((source, keys, args) =>
    withTimeout(options.timeoutMs, `Upstash did not answer within ${options.timeoutMs} ms`, () => redis.eval(source, keys, args)),
  );
  return slidingWindowLimiter('upstash', counter, options);
}

export function upstashLimiter(url: string, token: string, options: LimiterOptions): Limiter {
  return upstashClientLimiter(upstashRedis(url, token, options.timeoutMs), options);
}

/**
 * The limiter the settings ask for: on the shared Redis connection when there is
 * one, falling back to memory while it is down; else in memory.
 */
export function createLimiter(settings: Settings['limits'], redis: RedisConnection | undefined): Limiter {
  const { windowScale, verifiedAgentBudget } = settings;
  const options = { timeoutMs: settings.redisTimeoutMs, windowScale, verifiedAgentBudget };
  const memory = memoryLimiter({ windowScale, verifiedAgentBudget });
  if (redis?.kind === 'upstash') return withFallback(upstashClientLimiter(redis.redis, options), memory);
  if (redis?.kind === 'redis') return withFallback(redisClientLimiter(redis.redis, options), memory);
  return memory;
}
