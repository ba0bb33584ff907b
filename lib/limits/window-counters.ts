import { luaScript, scriptCall } from '../redis/lua';

/**
 * The one step of the sliding window that must be atomic: read the counts of the current and
 * the previous window of one client and route, and count this request in the current one when
 * the weighted total leaves room. The same step runs as a Lua script on Redis and Upstash and
 * as plain code in memory; the limiter (./limiter.ts) does the rest from what it returns.
 */
export type WindowStep = {
  currentKey: string;
  previousKey: string;
  limit: number;
  now: number;
  windowMs: number;
  /** What this request costs (1 unless priced: an MCP call by its work). */ cost?: number;
};
/** Whether the request was counted (its whole cost), and the counts it was decided on (current after counting it). */
export type WindowCounts = { allowed: boolean; current: number; previous: number };
export type WindowCounter = (step: WindowStep) => Promise<WindowCounts>;

/**
 * The previous window's count as the sliding window weighs it at `now`: it fades linearly from
 * whole at the start of the current window to nothing at its end.
 */
export function weightedPrevious(now: number, windowMs: number, previous: number): number {
  return Math.floor((1 - (now % windowMs) / windowMs) * previous);
}

/** A count lives two windows (it is the previous window's for the second), and a second more for clock skew. */
const keepMs = (windowMs: number) => windowMs * 2 + 1000;

export const SLIDING_WINDOW = luaScript(
  { keys: ['current_key', 'previous_key'], args: ['limit', 'now', 'window_ms', 'cost'] },
  `
local window = tonumber(window_ms)
local price = tonumber(cost)
local current = tonumber(redis.call('GET', current_key) or '0')
local previous = tonumber(redis.call('GET', previous_key) or '0')
local weighted = math.floor((1 - (tonumber(now) % window) / window) * previous)
if weighted + current + price > tonumber(limit) then return {0, current, previous} end
current = redis.call('INCRBY', current_key, price)
if current == price then redis.call('PEXPIRE', current_key, window * 2 + 1000) end
return {1, current, previous}
`,
);

/** The step on a Redis server or Upstash: one EVAL of the script above (`evaluate` bounds its own wait). */
export function scriptWindowCounter(evaluate: (source: string, keys: string[], args: string[]) => Promise<unknown>): WindowCounter {
  return async ({ currentKey, previousKey, limit, now, windowMs, cost = 1 }) => {
    const call = scriptCall(SLIDING_WINDOW, {
      keys: { current_key: currentKey, previous_key: previousKey },
      args: { limit, now, window_ms: windowMs, cost },
    });
    const reply = await evaluate(call.source, call.keys, call.args);
    if (!Array.isArray(reply) || reply.length !== 3) throw new Error('the sliding-window script answered something unexpected');
    const [allowed, current, previous] = reply.map(Number);
    return { allowed: allowed === 1, current: current ?? 0, previous: previous ?? 0 };
  };
}

/**
 * The step in this process, for one instance without Redis (and as the fallback while Redis is
 * away). Memory is bounded: counts expire as on Redis, expired ones are swept every so often,
 * and past `maxKeys` the oldest go first, however many clients arrive.
 */
export function memoryWindowCounter(options: { maxKeys?: number } = {}): WindowCounter & { readonly size: number } {
  const maxKeys = options.maxKeys ?? 100_000;
  const counts = new Map<string, { count: number; expiresAt: number }>();
  let operations = 0;
  const read = (key: string, at: number) => {
    const entry = counts.get(key);
    if (entry && entry.expiresAt <= at) counts.delete(key);
    return entry && entry.expiresAt > at ? entry : undefined;
  };
  const bound = (at: number) => {
    if (++operations % 1000 === 0) {
      for (const [key, entry] of counts) if (entry.expiresAt <= at) counts.delete(key);
    }
    for (const key of counts.keys()) {
      if (counts.size <= maxKeys) break;
      counts.delete(key);
    }
  };
  const step = async ({ currentKey, previousKey, limit, now, windowMs, cost = 1 }: WindowStep): Promise<WindowCounts> => {
    const entry = read(currentKey, now);
    const current = entry?.count ?? 0;
    const previous = read(previousKey, now)?.count ?? 0;
    if (weightedPrevious(now, windowMs, previous) + current + cost > limit) return { allowed: false, current, previous };
    if (entry) entry.count += cost;
    else {
      counts.set(currentKey, { count: cost, expiresAt: now + keepMs(windowMs) });
      bound(now);
    }
    return { allowed: true, current: current + cost, previous };
  };
  return Object.defineProperty(step, 'size', { get: () => counts.size }) as WindowCounter & { readonly size: number };
}
