import { createHash } from 'node:crypto';

/**
 * Just enough of a Redis server, in this process, for @upstash/ratelimit's
 * sliding window: the library runs unchanged and calls `evalsha`/`eval` with
 * its own scripts; each script it uses is recognised by its SHA-1 and carried
 * out here with the same steps as the Lua. An unknown script is an error, so
 * a library upgrade that changes a script fails the limiter contract tests
 * instead of silently changing the algorithm.
 *
 * Memory is bounded: keys expire as the script asks (PEXPIRE), expired keys are
 * swept, and past `maxKeys` the oldest keys go first, however many clients arrive.
 */
type Value = { count: number; expiresAt: number };
type Script = (store: MemoryRedis, keys: string[], args: unknown[]) => unknown;

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** What both sliding-window scripts read first: the limit, this window's count, the previous window's weighted count. */
function windowUsage(store: MemoryRedis, [currentKey = '', previousKey = '', dynamicLimitKey]: string[], [tokens, now, window]: unknown[]) {
  let effectiveLimit = Number(tokens);
  if (dynamicLimitKey) {
    const dynamic = store.get(dynamicLimitKey);
    if (dynamic !== undefined) effectiveLimit = dynamic;
  }
  const percentageInCurrent = (Number(now) % Number(window)) / Number(window);
  return { effectiveLimit, currentKey, current: store.get(currentKey) ?? 0, previous: Math.floor((1 - percentageInCurrent) * (store.get(previousKey) ?? 0)) };
}

/** The sliding-window scripts of @upstash/ratelimit 2.x (single region), step for step. */
const slidingWindowLimit: Script = (store, keys, args) => {
  const { effectiveLimit, currentKey, current, previous } = windowUsage(store, keys, args);
  const increment = Number(args[3]);
  if (increment > 0 && previous + current >= effectiveLimit) return [-1, effectiveLimit];
  const value = store.incrby(currentKey, increment);
  if (value === increment) store.pexpire(currentKey, Number(args[2]) * 2 + 1000);
  return [effectiveLimit - (value + previous), effectiveLimit];
};

const slidingWindowRemaining: Script = (store, keys, args) => {
  const { effectiveLimit, current, previous } = windowUsage(store, keys, args);
  return [effectiveLimit - (previous + current), effectiveLimit];
};

/**
 * SHA-1 of the scripts of @upstash/ratelimit 2.2.0 (pinned exactly in package.json)
 * that this emulation carries out. The library identifies its scripts the same way.
 */
export const KNOWN_SCRIPTS: Record<string, Script> = {
  '74740bb3d7792848093cdef586b6b6037c455fd6': slidingWindowLimit,
  '7ca36169e0fc9caedd81b4eef8e99854c157f9b5': slidingWindowRemaining,
};

export class MemoryRedis {
  private readonly store = new Map<string, Value>();
  private operations = 0;

  constructor(private readonly maxKeys = 100_000) {}

  get size(): number {
    return this.store.size;
  }

  get(key: string, now = Date.now()): number | undefined {
    const value = this.store.get(key);
    if (!value) return undefined;
    if (value.expiresAt <= now) {
      this.store.delete(key);
      return undefined;
    }
    return value.count;
  }

  incrby(key: string, by: number): number {
    const existing = this.get(key);
    const count = (existing ?? 0) + by;
    if (existing === undefined) {
      this.store.set(key, { count, expiresAt: Number.POSITIVE_INFINITY });
      this.bound();
    } else {
      this.store.get(key)!.count = count;
    }
    return count;
  }

  pexpire(key: string, ms: number): void {
    const value = this.store.get(key);
    if (value) value.expiresAt = Date.now() + ms;
  }

  /** Drops expired keys every so often, and the oldest keys past the cap. */
  private bound(): void {
    if (++this.operations % 1000 === 0) {
      const now = Date.now();
      for (const [key, value] of this.store) if (value.expiresAt <= now) this.store.delete(key);
    }
    for (const key of this.store.keys()) {
      if (this.store.size <= this.maxKeys) break;
      this.store.delete(key);
    }
  }

  async evalsha(hash: string, keys: string[], args: unknown[]): Promise<unknown> {
    const script = KNOWN_SCRIPTS[hash];
    if (!script) throw new Error(`NOSCRIPT lectern's in-memory limiter does not know the script ${hash}; was @upstash/ratelimit upgraded?`);
    return script(this, keys, args);
  }

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    return this.evalsha(sha1(script), keys, args);
  }
}
