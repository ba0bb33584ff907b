import { describe, expect, it } from 'vitest';
import { publishResponse } from '@/lib/publishing/endpoint';
import { settings } from '@/lib/settings';
import { otherRouteLimits } from '@/lib/limits/table';
import { testServices } from '../../support/services';
import { freshClient, setWriteRouteSettings } from '../../support/write-routes';

const CRON_SECRET = 'the-cron-secret-of-this-test';
setWriteRouteSettings({ CRON_SECRET });
const { services } = testServices();
const LIMIT = otherRouteLimits.publish;

/** GET /api/publish as a cron job or a guesser sends it, from one client address (the platform's edge header). */
const call = (client: string, token: string) =>
  publishResponse(
    new Request('http://localhost:3000/api/publish', { headers: { authorization: `Bearer ${token}`, 'x-real-ip': client } }),
    services,
    settings(),
  );

describe('GET /api/publish', () => {
  it('throttles a flood of wrong tokens from one address: 401 up to the limit, then 429 with Retry-After and the RateLimit headers', async () => {
    const guesser = freshClient();
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let guess = 0; guess < 200; guess += 1) {
      const response = await call(guesser, `guess-${guess}-${'x'.repeat(20)}`);
      statuses.push(response.status);
      if (response.status === 429) refused ??= response;
    }
    expect(statuses.slice(0, LIMIT.requests).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(LIMIT.requests).every((status) => status === 429)).toBe(true);
    expect(refused?.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(Number(refused?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused?.headers.get('ratelimit-policy')).toBe(`"publish";q=${LIMIT.requests};w=${LIMIT.windowSeconds}`);
    expect(refused?.headers.get('ratelimit')).toMatch(/^"publish";r=0;t=\d+$/);
    // Even the right token waits its turn from that address (publishing itself needs Next: the contract
    // tests call it); another address has a budget of its own.
    expect((await call(guesser, CRON_SECRET)).status).toBe(429);
    const other = await call(freshClient(), 'another-wrong-token-xxxxxxxx');
    expect(other.status).toBe(401);
    expect(other.headers.get('ratelimit')).toMatch(new RegExp(`^"publish";r=${LIMIT.requests - 1};t=\\d+$`));
  });
});
