import { describe, expect, inject, it } from 'vitest';
import { request, type RawResponse } from '../support/client';
import { startRedis } from '../support/redis';
import { contractSites } from '../support/contract-sites';

const startSiteWith = contractSites();
const site = (extraEnv: Record<string, string> = {}) => startSiteWith({ extraEnv });

/** Asks /healthz until it answers `status` (Redis reconnects in the background), at most 20 s. */
async function healthUntil(baseUrl: string, status: number): Promise<RawResponse> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const response = await request(baseUrl, '/healthz');
    if (response.status === status || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('/healthz', () => {
  it('answers 200 JSON for GET and HEAD with the embedded store, never cached and never rate limited', async () => {
    const base = inject('baseUrl');
    const statuses = new Set<number>();
    for (let i = 0; i < 30; i++) statuses.add((await request(base, '/healthz')).status);
    expect([...statuses]).toEqual([200]);
    const response = await request(base, '/healthz');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ status: 'ok', store: 'sqlite' });
    const head = await request(base, '/healthz', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
  });

  it('answers 503 naming Redis while it is stopped or hung, and 200 again once it is back', { timeout: 120_000 }, async () => {
    const redis = await startRedis();
    const running = await site({ REDIS_URL: redis.url });
    let replacement: Awaited<ReturnType<typeof startRedis>> | undefined;
    try {
      expect((await request(running.baseUrl, '/healthz')).json()).toEqual({ status: 'ok', store: 'redis' });

      await redis.stop();
      const down = await request(running.baseUrl, '/healthz');
      expect(down.status).toBe(503);
      expect(down.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(down.headers['cache-control']).toBe('no-store');
      expect(down.json()).toMatchObject({ status: 503, detail: expect.stringMatching(/^The store \(redis\) is not reachable: /) });

      replacement = await startRedis({ port: redis.port });
      const back = await healthUntil(running.baseUrl, 200);
      expect(back.status).toBe(200);
      expect(back.json()).toEqual({ status: 'ok', store: 'redis' });

      replacement.pause();
      const hung = await request(running.baseUrl, '/healthz');
      expect(hung.status).toBe(503);
      // The store's own Redis timeout or the health check's, whichever is shorter, names the wait.
      expect((hung.json() as { detail: string }).detail).toMatch(/^The store \(redis\) is not reachable: (Redis )?did not answer within \d+ ms\.$/);
      replacement.resume();
      expect((await healthUntil(running.baseUrl, 200)).status).toBe(200);
    } finally {
      replacement?.resume();
      await replacement?.stop();
      await redis.stop();
    }
  });
});
