import { Redis as UpstashRedis } from '@upstash/redis';
import { failFastRedis } from '../services/redis-client';
import { limitsEnv } from './env';
import { memoryLimiter, slidingWindowLimiter, withFallback, type Limiter } from './limiter';
import { nodeRedisAdapter } from './node-redis-adapter';

export { limitsEnv } from './env';
export type { LimitDecision, Limiter } from './limiter';

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    }),
  ]);
}

/** A Redis server through node-redis: fails fast while disconnected, reconnects in the background. */
export function redisServerLimiter(url: string, options: { timeoutMs: number; windowScale: number }): Limiter & { close: () => Promise<void> } {
  const redis = failFastRedis(url, { commandTimeoutMs: options.timeoutMs });
  const adapter = nodeRedisAdapter(redis.client);
  const limiter = slidingWindowLimiter(
    'redis',
    {
      evalsha: (...args) => redis.run(() => adapter.evalsha(...args)),
      eval: (...args) => redis.run(() => adapter.eval(...args)),
    },
    async (key) => {
      const value = await redis.run((client) => client.get(key));
      return value === null ? undefined : Number(value);
    },
    options,
  );
  return { ...limiter, close: redis.close };
}

export function upstashLimiter(url: string, token: string, options: { timeoutMs: number; windowScale: number }): Limiter {
  const redis = new UpstashRedis({ url, token, retry: { retries: 0 } });
  return slidingWindowLimiter('upstash', redis as never, async (key) => {
    const value = await withTimeout(redis.get<number>(key), options.timeoutMs, 'Upstash');
    return value === null ? undefined : Number(value);
  }, options);
}

const GLOBAL_KEY = Symbol.for('lectern.limiter');
type Holder = { [GLOBAL_KEY]?: Limiter };

/** The process's limiter, chosen from the environment once. */
export function limiter(): Limiter {
  const holder = globalThis as Holder;
  if (!holder[GLOBAL_KEY]) {
    const env = limitsEnv();
    const options = { timeoutMs: env.RATE_LIMIT_REDIS_TIMEOUT_MS, windowScale: env.RATE_LIMIT_WINDOW_SCALE };
    const memory = memoryLimiter({ windowScale: env.RATE_LIMIT_WINDOW_SCALE });
    if (env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN) {
      holder[GLOBAL_KEY] = withFallback(upstashLimiter(env.UPSTASH_REDIS_REST_URL, env.UPSTASH_REDIS_REST_TOKEN, options), memory);
    } else if (env.REDIS_URL) {
      holder[GLOBAL_KEY] = withFallback(redisServerLimiter(env.REDIS_URL, options), memory);
    } else {
      holder[GLOBAL_KEY] = memory;
    }
  }
  return holder[GLOBAL_KEY];
}
