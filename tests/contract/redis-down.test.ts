import { createClient } from 'redis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openRedisStore } from '@/lib/services/store/redis';
import { freshAddress, postJson } from '../support/client';
import { startRedis } from '../support/redis';
import { freePort, startSite, type RunningSite } from '../support/site';

type Redis = Awaited<ReturnType<typeof startRedis>>;

const running: { site?: RunningSite; redis: Redis[] } = { redis: [] };
afterAll(async () => {
  await running.site?.stop();
  await Promise.all(running.redis.map((redis) => redis.stop()));
});

/** What the store kept in this Redis for an address, read through the store itself. */
async function storedSubscriber(url: string, email: string) {
  const client = createClient({ url });
  await client.connect();
  const store = openRedisStore({ eval: (script, keys, args) => client.eval(script, { keys, arguments: args }) }, async () => void (await client.quit()));
  try {
    return (await store.subscribers.list()).find((subscriber) => subscriber.email === email);
  } finally {
    await store.close();
  }
}

async function subscribe(baseUrl: string, email: string) {
  const started = performance.now();
  const response = await postJson(baseUrl, '/api/subscribe', { email }, { from: freshAddress() });
  return { response, elapsedMs: performance.now() - started };
}

describe('a write while the Redis that holds the store is down', () => {
  it('answers within 1 s with a 503 problem and Retry-After, keeps nothing, and stores again by itself once Redis is back', { timeout: 120_000 }, async () => {
    const first = await startRedis();
    running.redis.push(first);
    const site = await startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port: await freePort(),
      extraEnv: { REDIS_URL: first.url },
    });
    running.site = site;
    expect((await subscribe(site.baseUrl, 'before@example.com')).response.status).toBe(202);

    await first.stop();
    const { response, elapsedMs } = await subscribe(site.baseUrl, 'during@example.com');
    expect(response.status).toBe(503);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(response.json()).toMatchObject({ status: 503 });
    expect(elapsedMs).toBeLessThan(1000);

    // A new Redis on the same address; lectern keeps running and reconnects on its own.
    const second = await startRedis({ port: first.port });
    running.redis.push(second);
    let status = 0;
    for (const deadline = Date.now() + 15_000; status !== 202 && Date.now() < deadline;) {
      status = (await subscribe(site.baseUrl, 'after@example.com')).response.status;
      if (status !== 202) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(202);
    expect(await storedSubscriber(second.url, 'after@example.com')).toMatchObject({ email: 'after@example.com', status: 'pending' });
    expect(await storedSubscriber(second.url, 'during@example.com')).toBeUndefined();
  });

  it('answers promptly with a 503 while Redis hangs, and stores again once it answers', { timeout: 120_000 }, async () => {
    const redis = await startRedis();
    running.redis.push(redis);
    const site = await startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port: await freePort(),
      extraEnv: { REDIS_URL: redis.url },
    });
    try {
      expect((await subscribe(site.baseUrl, 'before@example.com')).response.status).toBe(202);
      redis.pause();
      const { response, elapsedMs } = await subscribe(site.baseUrl, 'hung@example.com');
      redis.resume();
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
      // The limiter's wait and the store's add up to 750 ms; on a busy machine the answer
      // has come in up to 1.2 s, so this bound tells a wait from a hang, not the exact budget.
      expect(elapsedMs).toBeLessThan(1500);
      expect((await subscribe(site.baseUrl, 'after@example.com')).response.status).toBe(202);
      expect(await storedSubscriber(redis.url, 'after@example.com')).toMatchObject({ status: 'pending' });
    } finally {
      redis.resume();
      await site.stop();
    }
  });
});
