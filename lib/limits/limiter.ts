import { describeError } from '../log';
import { verifiedAgentLimit } from '../routes/manifest';
import { appliedLimit, routeLimits, type LimitedRoute } from './table';
import { memoryWindowCounter, weightedPrevious, type WindowCounter } from './window-counters';

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
  /** Counts a request of `cost` (1 unless priced; at most the route's limit) against the client's budget, if it fits. */
  check(route: LimitedRoute, client: string, cost?: number): Promise<LimitDecision>;
};

/** Window of a route in ms; tests may scale every window down, never edit the table. */
export function windowMs(route: LimitedRoute, scale = 1): number {
  return Math.max(1000, Math.round(routeLimits[route].windowSeconds * 1000 * scale));
}

/**
 * The earliest moment a request would pass in the sliding window, from the counts of the
 * current and previous windows: the previous window's weight falls linearly, so the answer is
 * exact, not the end of the window.
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

/** How a limiter applies the table: every window scaled by `windowScale`, a verified agent's budget (the table's unless given). */
export type WindowOptions = { windowScale: number; verifiedAgentBudget?: number; clock?: () => number };

/**
 * One algorithm over any backend: the sliding window (two fixed windows per client and route,
 * the previous one weighted by how much of it still overlaps the last `window`), the same as
 * @upstash/ratelimit's, owned here. A backend only carries out the atomic step
 * (./window-counters.ts); every number the headers need comes from the counts it returns.
 */
export function slidingWindowLimiter(name: string, counter: WindowCounter, options: WindowOptions): Limiter {
  const clock = options.clock ?? Date.now;
  const verifiedAgentBudget = options.verifiedAgentBudget ?? verifiedAgentLimit.requests;
  return {
    name,
    async check(route, client, cost = 1) {
      const window = windowMs(route, options.windowScale);
      const limit = appliedLimit(route, verifiedAgentBudget).requests;
      const price = Math.min(limit, Math.max(1, Math.ceil(cost)));
      const now = clock();
      const index = Math.floor(now / window);
      const key = (windowIndex: number) => `lectern:limit:${route}:${client}:${windowIndex}`;
      const { allowed, current, previous } = await counter({ currentKey: key(index), previousKey: key(index - 1), limit, now, windowMs: window, cost: price });
      const resetSeconds = Math.max(1, Math.ceil(((index + 1) * window - now) / 1000));
      const windowSeconds = window / 1000;
      if (allowed) {
        const remaining = Math.max(0, limit - (current + weightedPrevious(now, window, previous)));
        return { allowed: true, limit, remaining, windowSeconds, resetSeconds, retryAfterSeconds: 0 };
      }
      // A request of `price` passes once `price - 1` more would: as one of 1 under a limit that much lower.
      const retryAfterSeconds = Math.max(1, Math.ceil((nextAllowedAt(now, window, limit - price + 1, current, previous) - now) / 1000));
      return { allowed: false, limit, remaining: 0, windowSeconds, resetSeconds: Math.max(resetSeconds, retryAfterSeconds), retryAfterSeconds };
    },
  };
}

export function memoryLimiter(options: WindowOptions & { maxKeys?: number }): Limiter & { counts: { readonly size: number } } {
  const counts = memoryWindowCounter({ maxKeys: options.maxKeys });
  return { ...slidingWindowLimiter('memory', counts, options), counts };
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
    async check(route, client, cost) {
      try {
        const decision = await primary.check(route, client, cost);
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
        return fallback.check(route, client, cost);
      }
    },
  };
}
