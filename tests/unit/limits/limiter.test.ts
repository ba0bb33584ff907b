import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { LimiterUnavailable, memoryLimiter, nextAllowedAt, withFallback, type Limiter } from '@/lib/limits/limiter';
import { KNOWN_SCRIPTS, MemoryRedis } from '@/lib/limits/memory-redis';
import { stripShebang } from '@/lib/limits/node-redis-adapter';

describe('@upstash/ratelimit as installed', () => {
  const require = createRequire(import.meta.url);
  const source = fs.readFileSync(require.resolve('@upstash/ratelimit'), 'utf8');
  const script = (name: string) => new RegExp(`var ${name} = \`([\\s\\S]*?)\`;`).exec(source)?.[1] ?? '';

  it('still uses the sliding-window scripts the in-memory store carries out', () => {
    const hashes = ['slidingWindowLimitScript', 'slidingWindowRemainingTokensScript'].map((name) => createHash('sha1').update(script(name)).digest('hex'));
    expect(hashes.sort()).toEqual(Object.keys(KNOWN_SCRIPTS).sort());
  });

  it('still starts its scripts with the shebang the Redis adapter strips', () => {
    const limit = script('slidingWindowLimitScript');
    expect(limit.startsWith('#!lua flags=allow-key-locking\n')).toBe(true);
    expect(stripShebang(limit).startsWith('#!')).toBe(false);
  });
});

describe('nextAllowedAt', () => {
  const window = 10_000;
  it('is one millisecond into the next window when the current window is full', () => {
    expect(nextAllowedAt(12_345, window, 5, 5, 0)).toBe(20_001);
  });
  it('is when the previous window has faded enough', () => {
    // 2 in this window, 6 in the previous: pass once floor((1-f)*6) < 3, i.e. f > 0.5.
    expect(nextAllowedAt(10_000, window, 5, 2, 6)).toBe(15_001);
  });
  it('waits for a heavy previous window to fade almost entirely', () => {
    // 4 here, 100 before: pass once floor((1-f)*100) < 1, i.e. f > 0.99.
    expect(nextAllowedAt(10_000, window, 5, 4, 100)).toBe(19_901);
  });
  it('is never later than the start of the next window when this one is not full', () => {
    expect(nextAllowedAt(10_000, window, 5, 4, 1_000_000)).toBe(20_000);
  });
});

describe('the in-memory store', () => {
  it('keeps a bounded number of keys however many clients arrive', async () => {
    const limiter = memoryLimiter({ windowScale: 1, maxKeys: 1000 });
    for (let i = 0; i < 5000; i++) await limiter.check('subscribe', `10.0.${i >> 8}.${i & 255}`);
    expect(limiter.store.size).toBeLessThanOrEqual(1000);
  });

  it('refuses a script it does not know', async () => {
    await expect(new MemoryRedis().eval('return 1', [], [])).rejects.toThrow(/does not know the script/);
  });
});

describe('withFallback', () => {
  it('decides in memory while the shared limiter fails, warning once per outage', async () => {
    let failing = true;
    const primary: Limiter = {
      name: 'redis',
      check: async (route, client) => {
        if (failing) throw new LimiterUnavailable('connection refused redis://secret@host:6379');
        return memoryLimiter({ windowScale: 1 }).check(route, client);
      },
    };
    const log = { warn: vi.fn(), info: vi.fn() };
    const limiter = withFallback(primary, memoryLimiter({ windowScale: 1 }), log);
    const decisions = [];
    for (let i = 0; i < 7; i++) decisions.push(await limiter.check('subscribe', 'client'));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn.mock.calls[0]?.[0]).not.toContain('secret');
    failing = false;
    await limiter.check('subscribe', 'other');
    expect(log.info).toHaveBeenCalledTimes(1);
    failing = true;
    await limiter.check('subscribe', 'other');
    expect(log.warn).toHaveBeenCalledTimes(2);
  });
});
