import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLimiter, type Limiter } from '@/lib/limits/limiter';
import { redisServerLimiter, upstashLimiter } from '@/lib/limits';
import { otherRouteLimits, writeRouteLimits } from '@/lib/limits/table';
import { flushRedis, testRedisUrl } from '../../support/redis';
import { startUpstashStandIn, type UpstashStandIn } from '../../support/upstash';

/** Windows scaled so the subscribe route's ten minutes last two seconds. */
const SCALE = 2 / writeRouteLimits.subscribe.windowSeconds;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Backend = { name: string; create: (windowScale: number) => Promise<Limiter & { close?: () => Promise<void> }> };

const backends: Backend[] = [
  { name: 'memory', create: async (windowScale) => memoryLimiter({ windowScale }) },
  {
    name: 'redis-server',
    create: async (windowScale) => {
      await flushRedis(testRedisUrl(1));
      return redisServerLimiter(testRedisUrl(1), { timeoutMs: 1000, windowScale });
    },
  },
];

let upstash: UpstashStandIn | undefined;
backends.push({
  name: 'upstash',
  create: async (windowScale) => {
    if (!upstash) {
      await flushRedis(testRedisUrl(13));
      upstash = await startUpstashStandIn(testRedisUrl(13));
    }
    // One HTTP request per decision, answered in this process: more room than a Redis socket needs.
    return upstashLimiter(upstash.url, upstash.token, { timeoutMs: 5000, windowScale });
  },
});
afterAll(async () => upstash?.close());

let unique = 0;
const clientId = () => `198.51.100.${++unique}-${Date.now()}`;

describe.each(backends)('the $name limiter', ({ create }) => {
  // The table's own windows for counting; two-second windows only where the test waits them out.
  let limiter: Limiter & { close?: () => Promise<void> };
  let short: Limiter & { close?: () => Promise<void> };
  beforeAll(async () => {
    limiter = await create(1);
    short = await create(SCALE);
  });
  afterAll(async () => {
    await limiter.close?.();
    await short.close?.();
  });

  it('counts a priced request its whole cost: the MCP budget holds 1,200 units, so 109 calls of 11 and then only ones that fit', async () => {
    const client = clientId();
    const limit = otherRouteLimits.mcp.requests;
    const decisions = await Promise.all(Array.from({ length: 120 }, () => limiter.check('mcp', client, 11)));
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(Math.floor(limit / 11));
    const refused = await limiter.check('mcp', client, 11);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // 1,199 units are spent: a call of 1 still fits, one of 2 does not.
    expect((await limiter.check('mcp', client, 2)).allowed).toBe(false);
    const last = await limiter.check('mcp', client, 1);
    expect(last).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.check('mcp', client, 1)).allowed).toBe(false);
  });

  it('lets exactly N of 40 concurrent requests through, then refuses the next', async () => {
    for (const route of ['subscribe', 'checkout', 'bookingCancel'] as const) {
      const client = clientId();
      const decisions = await Promise.all(Array.from({ length: 40 }, () => limiter.check(route, client)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(writeRouteLimits[route].requests);
      const next = await limiter.check(route, client);
      expect(next.allowed).toBe(false);
      expect(next.remaining).toBe(0);
      expect(next.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
  });

  it('counts down remaining and reports the limit', async () => {
    const client = clientId();
    const first = await limiter.check('support', client);
    const second = await limiter.check('support', client);
    expect(first).toMatchObject({ allowed: true, limit: 5, remaining: 4 });
    expect(second).toMatchObject({ allowed: true, limit: 5, remaining: 3 });
  });

  it('is honest about Retry-After: a request sent that many seconds later passes', async () => {
    const client = clientId();
    await Promise.all(Array.from({ length: 5 }, () => short.check('subscribe', client)));
    const refused = await short.check('subscribe', client);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(3);
    await sleep(refused.retryAfterSeconds * 1000);
    expect((await short.check('subscribe', client)).allowed).toBe(true);
  });

  it('keeps separate budgets for separate routes and separate clients', async () => {
    const [a, b] = [clientId(), clientId()];
    for (let i = 0; i < 5; i++) await limiter.check('subscribe', a);
    expect((await limiter.check('subscribe', a)).allowed).toBe(false);
    expect((await limiter.check('support', a)).allowed).toBe(true);
    expect((await limiter.check('subscribe', b)).allowed).toBe(true);
  });
});
