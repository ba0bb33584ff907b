import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postJson, request } from '../support/client';
import { startNginx, type RunningNginx } from '../support/nginx';
import { startRedis } from '../support/redis';
import { freePort, startSite, type RunningSite } from '../support/site';

/**
 * deploy/nginx.conf in front of two lectern instances sharing one Redis, as the
 * README's deployment describes (tests/support/nginx.ts renders it with the test's
 * ports). Each response names the instance nginx chose (X-Upstream), so the test
 * can see both serve.
 */
describe('behind nginx (deploy/nginx.conf), two instances and one Redis', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let instances: RunningSite[] = [];
  let nginx: RunningNginx;
  let http: string;
  let https: string;

  beforeAll(async () => {
    redis = await startRedis();
    const start = async () =>
      startSite({
        contentDir: inject('contentDir'),
        distDir: inject('distDir'),
        siteUrl: inject('siteUrl'),
        port: await freePort(),
        extraEnv: { TRUST_PROXY: '1', REDIS_URL: redis.url },
      });
    instances = await Promise.all([start(), start()]);
    nginx = await startNginx(instances.map((instance) => Number(new URL(instance.baseUrl).port)) as [number, number]);
    http = nginx.http;
    https = nginx.https;
  });

  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((instance) => instance.stop()));
    await redis?.stop();
  });

  it('holds the per-address limit across both instances, and a forged X-Forwarded-For buys no fresh quota', async () => {
    const from = freshAddress();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await postJson(http, '/api/subscribe', { email: 'not-an-email' }, { from }));
    expect(new Set(answers.map((answer) => answer.headers['x-upstream'])).size).toBe(2);
    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400, 429]);

    for (const forged of ['203.0.113.7', '198.51.100.1, 203.0.113.8']) {
      const answer = await postJson(http, '/api/subscribe', { email: 'not-an-email' }, { from, headers: { 'X-Forwarded-For': forged } });
      expect(answer.status).toBe(429);
    }
    // Another address still has its own budget.
    expect((await postJson(http, '/api/subscribe', { email: 'not-an-email' }, { from: freshAddress() })).status).toBe(400);
  });

  it("keeps lectern's compression and strong ETags, and answers 304 from either instance", async () => {
    const plain = await request(http, '/api/blog');
    const zipped = await request(http, '/api/blog', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/Accept-Encoding/);
    expect(plain.headers.etag).toMatch(/^"[^"]+"$/);
    expect(zipped.headers.etag).toMatch(/^"[^"]+"$/);
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);

    expect(JSON.parse(gunzipSync(zipped.bytes).toString('utf8'))).toEqual(JSON.parse(plain.body));

    const revalidations = [];
    for (let i = 0; i < 4; i++) {
      revalidations.push(await request(http, '/api/blog', { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': zipped.headers.etag ?? '' } }));
      revalidations.push(await request(http, '/api/blog', { headers: { 'If-None-Match': plain.headers.etag ?? '' } }));
    }
    expect(revalidations.map((answer) => answer.status)).toEqual(Array(8).fill(304));
    expect(new Set(revalidations.map((answer) => answer.headers['x-upstream'])).size).toBe(2);
  });

  it('sends Strict-Transport-Security only when nginx says the request came over https', async () => {
    const plain = await request(http, '/');
    expect(plain.status).toBe(200);
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    // A client claiming https itself is not believed: nginx replaces the header.
    const claimed = await request(http, '/', { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(claimed.headers['strict-transport-security']).toBeUndefined();

    const secure = await request(https, '/');
    expect(secure.status).toBe(200);
    expect(secure.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
    const api = await request(https, '/api/blog');
    expect(api.headers['strict-transport-security']).toBe('max-age=63072000; includeSubDomains');
  });

  it('answers the health check through the proxy without caching it', async () => {
    const answer = await request(http, '/healthz');
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.json()).toEqual({ status: 'ok', store: 'redis' });
  });
});
