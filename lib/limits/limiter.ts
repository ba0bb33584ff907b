import { Ratelimit } from '@upstash/ratelimit';
import { describeError } from '../log';
import { MemoryRedis } from './memory-redis';
import { routeLimits, type LimitedRoute } from './table';

/** The outcome of one limit check, in the terms the HTTP headers need. */
export type LimitDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  windowSeconds: number;
  /** Whole seconds until the quota is whole again (RateLimit `t`). */
  resetSeconds: number;
  /** Whole seconds (≥ 1) until a request would pass; set when refused. */
  retryAfterSeconds: number;
};

export type Limiter = {
  readonly name: string;
  check(route: LimitedRoute, client: string): Promise<LimitDecision>;
};

/** What a backend must offer besides the scripts: reading a counter, for an honest Retry-After. */
export type RedisLike = {
  evalsha: (hash: string, keys: string[], args: unknown[]) => Promise<unknown>;
  eval: (script: string, keys: string[], args: unknown[]) => Promise<unknown>;
};
export type CounterReader = (key: string) => Promise<number | undefined>;

export class LimiterUnavailable extends Error {}

/** Window of a route in ms; tests may scale every window down, never edit the table. */
export function windowMs(route: LimitedRoute, scale = 1): number {
  return Math.max(1000, Math.round(routeLimits[route].windowSeconds * 1000 * scale));
}

/**
 * The earliest moment a request would pass in @upstash/ratelimit's sliding
 * window, from the counts of the current and previous windows: the previous
 * window's weight falls linearly, so the answer is exact, not the end of the window.
 */
export function nextAllowedAt(now: number, window: number, limit: number, current: number, previous: number): number {
  const windowStart = Math.floor(now / window) * window;
  if (current < limit) {
    if (previous === 0) return now;
    // Passes once floor((1 - f) * previous) < limit - current, i.e. f > 1 - (limit - current) / previous,
    // and at the latest when the next window starts (its previous window then holds `current` < limit).
    const at = windowStart + Math.floor(window * (1 - (limit - current) / previous)) + 1;
    return Math.min(Math.max(now, at), windowStart + window);
  }
  // The current window is full: it weighs less than `limit` one millisecond into the next.
  return windowStart + window + 1;
}

/** One algorithm, the sliding window of @upstash/ratelimit, over any Redis-like store. */
export function slidingWindowLimiter(name: string, redis: RedisLike, readCounter: CounterReader, options: { timeoutMs: number; windowScale: number }): Limiter {
  const limiters = new Map<LimitedRoute, { ratelimit: Ratelimit; prefix: string; window: number }>();
  function limiterFor(route: LimitedRoute) {
    let entry = limiters.get(route);
    if (!entry) {
      const window = windowMs(route, options.windowScale);
      const prefix = `lectern:limit:${route}`;
      const ratelimit = new Ratelimit({
        // The library's Redis type is @upstash/redis; it only calls evalsha/eval for this algorithm.
        redis: redis as never,
        limiter: Ratelimit.slidingWindow(routeLimits[route].requests, `${window} ms`),
        prefix,
        ephemeralCache: false,
        analytics: false,
        timeout: options.timeoutMs,
      });
      entry = { ratelimit, prefix, window };
      limiters.set(route, entry);
    }
    return entry;
  }

  return {
    name,
    async check(route, client) {
      const { ratelimit, prefix, window } = limiterFor(route);
      const result = await ratelimit.limit(client);
      if (result.reason === 'timeout' || result.reset === 0) throw new LimiterUnavailable(`${name} did not answer within ${options.timeoutMs} ms`);
      const now = Date.now();
      const limit = routeLimits[route].requests;
      const resetSeconds = Math.max(1, Math.ceil((result.reset - now) / 1000));
      if (result.success) {
        return { allowed: true, limit, remaining: result.remaining, windowSeconds: window / 1000, resetSeconds, retryAfterSeconds: 0 };
      }
      const currentWindow = Math.floor(now / window);
      const [current, previous] = await Promise.all([
        readCounter(`${prefix}:${client}:${currentWindow}`),
        readCounter(`${prefix}:${client}:${currentWindow - 1}`),
      ]);
      const at = nextAllowedAt(now, window, limit, current ?? 0, previous ?? 0);
      const retryAfterSeconds = Math.max(1, Math.ceil((at - Date.now()) / 1000));
      return { allowed: false, limit, remaining: 0, windowSeconds: window / 1000, resetSeconds: Math.max(resetSeconds, retryAfterSeconds), retryAfterSeconds };
    },
  };
}

export function memoryLimiter(options: { windowScale: number; maxKeys?: number }): Limiter & { store: MemoryRedis } {
  const store = new MemoryRedis(options.maxKeys);
  const limiter = slidingWindowLimiter('memory', store, async (key) => store.get(key), { timeoutMs: 0, windowScale: options.windowScale });
  return { ...limiter, store };
}

/**
 * A shared limiter (Redis) with the in-memory one behind it: when Redis is down
 * or slow the request is decided in memory, and a warning is logged once per
 * outage, not per request.
 */
export function withFallback(primary: Limiter, fallback: Limiter, log: Pick<Console, 'warn' | 'info'> = console): Limiter {
  let outage = false;
  return {
    name: `${primary.name} (memory when unavailable)`,
    async check(route, client) {
      try {
        const decision = await primary.check(route, client);
        if (outage) {
          outage = false;
          log.info(`rate limiter: ${primary.name} is back; limits are shared again`);
        }
        return decision;
      } catch (error) {
        if (!outage) {
          outage = true;
          log.warn(`rate limiter: ${primary.name} unavailable (${describeError(error)}); deciding in memory until it is back`);
        }
        return fallback.check(route, client);
      }
    },
  };
}
