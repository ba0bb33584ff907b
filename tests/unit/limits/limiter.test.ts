import { describe, expect, it, vi } from 'vitest';
import { memoryLimiter, nextAllowedAt, withFallback, type Limiter } from '@/lib/limits/limiter';
import { writeRouteLimits } from '@/lib/limits/table';

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

describe('the sliding window, with the clock moved by hand', () => {
  const window = writeRouteLimits.subscribe.windowSeconds * 1000;
  const start = 1_000 * window; // the start of a window
  function limiterAt(times: { now: number }) {
    return memoryLimiter({ windowScale: 1, clock: () => times.now });
  }

  it("lets the route's requests through in one window, then refuses with the exact wait", async () => {
    const times = { now: start };
    const limiter = limiterAt(times);
    for (let i = 0; i < 5; i++) expect((await limiter.check('subscribe', 'client')).allowed).toBe(true);
    const refused = await limiter.check('subscribe', 'client');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, limit: 5 });
    // The window is full: the next request passes one millisecond into the next window.
    expect(refused.retryAfterSeconds).toBe(window / 1000 + 1);
  });

  it('weighs the previous window by how much of it still overlaps', async () => {
    const times = { now: start };
    const limiter = limiterAt(times);
    for (let i = 0; i < 5; i++) await limiter.check('subscribe', 'client');
    // A quarter into the next window, the five weigh floor(0.75 * 5) = 3: two more pass, not five.
    times.now = start + window + window / 4;
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await limiter.check('subscribe', 'client'));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, false]);
    expect(decisions[0]?.remaining).toBe(1);
    // Refused at 2 + floor((1 - f) * 5) >= 5 until f > 0.4: Retry-After reaches just past that point.
    const wait = decisions[2]!.retryAfterSeconds * 1000;
    times.now += wait;
    expect((await limiter.check('subscribe', 'client')).allowed).toBe(true);
    expect(start + window + window * 0.4).toBeLessThan(times.now);
    expect(times.now - 1000).toBeLessThanOrEqual(start + window + window * 0.4 + 1);
  });

  it('forgets a client two windows on', async () => {
    const times = { now: start };
    const limiter = limiterAt(times);
    for (let i = 0; i < 6; i++) await limiter.check('subscribe', 'client');
    times.now = start + 2 * window;
    expect(await limiter.check('subscribe', 'client')).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('keeps a bounded number of counts however many clients arrive', async () => {
    const limiter = memoryLimiter({ windowScale: 1, maxKeys: 1000 });
    for (let i = 0; i < 5000; i++) await limiter.check('subscribe', `10.0.${i >> 8}.${i & 255}`);
    expect(limiter.counts.size).toBeLessThanOrEqual(1000);
  });
});

describe('withFallback', () => {
  it('decides in memory while the shared limiter fails, warning once per outage', async () => {
    let failing = true;
    const primary: Limiter = {
      name: 'redis',
      check: async (route, client) => {
        if (failing) throw new Error('connection refused redis://secret@host:6379');
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
