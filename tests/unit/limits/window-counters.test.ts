import fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryWindowCounter, scriptWindowCounter, weightedPrevious, type WindowCounter } from '@/lib/limits/window-counters';
import { flushRedis, testRedisUrl } from '../../support/redis';

const url = testRedisUrl(5);
const client = createClient({ url });
beforeAll(async () => {
  await flushRedis(url);
  await client.connect();
});
afterAll(() => client.quit());

const onRedis = () => scriptWindowCounter((source, keys, args) => client.eval(source, { keys, arguments: args }));

describe('weightedPrevious', () => {
  it('counts the whole previous window at the start of the current one and nothing at its end', () => {
    expect(weightedPrevious(10_000, 10_000, 7)).toBe(7);
    expect(weightedPrevious(15_000, 10_000, 7)).toBe(3);
    expect(weightedPrevious(19_999, 10_000, 7)).toBe(0);
  });
});

describe('the atomic step', () => {
  it('answers the same in memory and as the Lua script on a real Redis, for any sequence of requests', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ advance: fc.integer({ min: 0, max: 3000 }), client: fc.constantFrom('a', 'b') }), { minLength: 1, maxLength: 40 }),
        async (requests) => {
          const prefix = `run${++run}`;
          const memory = memoryWindowCounter();
          const redis = onRedis();
          const windowMs = 2000;
          let now = 1_000_000;
          for (const { advance, client: who } of requests) {
            now += advance;
            const index = Math.floor(now / windowMs);
            const step = { currentKey: `${prefix}:${who}:${index}`, previousKey: `${prefix}:${who}:${index - 1}`, limit: 3, now, windowMs };
            const [fromMemory, fromRedis] = await Promise.all([memory(step), redis(step)]);
            expect(fromRedis).toEqual(fromMemory);
          }
        },
      ),
      { numRuns: 30, seed: 20261124 },
    );
  });

  it('counts concurrent requests on Redis atomically: exactly the limit passes', async () => {
    const redis: WindowCounter = onRedis();
    const step = { currentKey: 'burst:1', previousKey: 'burst:0', limit: 5, now: 5_000, windowMs: 10_000 };
    const results = await Promise.all(Array.from({ length: 30 }, () => redis(step)));
    expect(results.filter((result) => result.allowed)).toHaveLength(5);
    expect(Number(await client.get('burst:1'))).toBe(5);
    // The count lives two windows and a second, as the memory counter keeps it.
    const ttl = await client.pTTL('burst:1');
    expect(ttl).toBeGreaterThan(20_000);
    expect(ttl).toBeLessThanOrEqual(21_000);
  });

  it('keeps at most maxKeys counts in memory, dropping the oldest first', async () => {
    const memory = memoryWindowCounter({ maxKeys: 3 });
    for (const key of ['k1', 'k2', 'k3', 'k4']) await memory({ currentKey: key, previousKey: `${key}:before`, limit: 5, now: 0, windowMs: 1000 });
    expect(memory.size).toBe(3);
    // k1 went first: counting it again starts from nothing.
    expect(await memory({ currentKey: 'k1', previousKey: 'k1:before', limit: 5, now: 0, windowMs: 1000 })).toEqual({ allowed: true, current: 1, previous: 0 });
  });

  it('forgets a count once it expires', async () => {
    const memory = memoryWindowCounter();
    const step = { currentKey: 'k', previousKey: 'k:before', limit: 1, now: 0, windowMs: 1000 };
    expect((await memory(step)).allowed).toBe(true);
    expect((await memory(step)).allowed).toBe(false);
    // Two windows and a second later the same key holds nothing.
    expect(await memory({ ...step, now: 3000 })).toEqual({ allowed: true, current: 1, previous: 0 });
  });
});
