import { describe, expect, it, vi } from 'vitest';
import { admit, rateLimitHeaders } from '@/lib/limits/admission';
import { memoryLimiter } from '@/lib/limits/limiter';
import { writeRouteLimits } from '@/lib/limits/table';
import type { Settings } from '@/lib/settings';

const behindOneProxy: Settings['deployment'] = { trustProxy: 1, clientIpHeader: undefined, platform: false, loopbackAgentDirectories: false };
const fromAddress = (address: string) => new Request('http://localhost/api/subscribe', { method: 'POST', headers: { 'X-Forwarded-For': address } });

describe('admit', () => {
  it('counts every request of one address against the route and refuses past the limit with an honest wait', async () => {
    const limiter = memoryLimiter({ windowScale: 1 });
    const answers = [];
    for (let i = 0; i < writeRouteLimits.subscribe.requests + 1; i++)
      answers.push(await admit(fromAddress('203.0.113.9'), 'subscribe', limiter, behindOneProxy));
    expect(answers.map((answer) => answer.ok)).toEqual([true, true, true, true, true, false]);
    const refused = answers.at(-1)!;
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.refusal.problem).toBe('rate-limited');
    expect(Number(refused.refusal.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers).toMatchObject({ 'RateLimit-Policy': '"subscribe";q=5;w=600', RateLimit: expect.stringMatching(/^"subscribe";r=0;t=\d+$/) });
    // Another address has its own budget.
    expect((await admit(fromAddress('203.0.113.10'), 'subscribe', limiter, behindOneProxy)).ok).toBe(true);
  });

  it('refuses everything, and says how to fix it once, when no client address can be believed', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const limiter = { name: 'never', check: vi.fn() };
    const untrusted: Settings['deployment'] = { trustProxy: 0, clientIpHeader: undefined, platform: true, loopbackAgentDirectories: false };
    const first = await admit(new Request('http://localhost/api/subscribe', { method: 'POST' }), 'subscribe', limiter, untrusted);
    await admit(new Request('http://localhost/api/subscribe', { method: 'POST' }), 'subscribe', limiter, untrusted);
    expect(first).toMatchObject({ ok: false, refusal: { problem: 'not-served-by-lectern' }, headers: rateLimitHeaders('subscribe') });
    expect(limiter.check).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledTimes(1);
    error.mockRestore();
  });
});
