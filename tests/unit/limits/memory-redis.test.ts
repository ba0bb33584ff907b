import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRedis } from '@/lib/limits/memory-redis';

const require = createRequire(import.meta.url);
const source = fs.readFileSync(require.resolve('@upstash/ratelimit'), 'utf8');
const limitScript = /var slidingWindowLimitScript = `([\s\S]*?)`;/.exec(source)?.[1] ?? '';
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

afterEach(() => {
  vi.useRealTimers();
});

describe('MemoryRedis', () => {
  it('counts, and forgets a key once it expires', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const redis = new MemoryRedis();
    expect(redis.incrby('a', 2)).toBe(2);
    expect(redis.incrby('a', 3)).toBe(5);
    redis.pexpire('a', 1000);
    vi.setSystemTime(1_000_999);
    expect(redis.get('a')).toBe(5);
    vi.setSystemTime(1_001_000);
    expect(redis.get('a')).toBeUndefined();
    expect(redis.incrby('a', 1)).toBe(1);
  });

  it('keeps at most maxKeys keys, dropping the oldest first', () => {
    const redis = new MemoryRedis(3);
    for (const key of ['a', 'b', 'c', 'd', 'e']) redis.incrby(key, 1);
    expect(redis.size).toBe(3);
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => redis.get(key))).toEqual([undefined, undefined, 1, 1, 1]);
  });

  it("runs the library's sliding-window script by its hash or its text, as Redis would", async () => {
    const redis = new MemoryRedis();
    const args = [2, 60_000 * 10 + 5, 60_000, 1];
    expect(await redis.evalsha(sha1(limitScript), ['current', 'previous'], args)).toEqual([1, 2]);
    expect(await redis.eval(limitScript, ['current', 'previous'], args)).toEqual([0, 2]);
    // Full: refused without counting.
    expect(await redis.evalsha(sha1(limitScript), ['current', 'previous'], args)).toEqual([-1, 2]);
    expect(redis.get('current')).toBe(2);
  });

  it('refuses a script it does not know, so a changed library cannot change the algorithm silently', async () => {
    const redis = new MemoryRedis();
    await expect(redis.eval('return 1', [], [])).rejects.toThrow(/NOSCRIPT .* does not know the script/);
    await expect(redis.evalsha('0'.repeat(40), [], [])).rejects.toThrow(/NOSCRIPT/);
  });
});
