import fs from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postJson, request } from '../support/client';
import { startNginx, type RunningNginx } from '../support/nginx';
import { startRedis } from '../support/redis';
import { freePort, startSite, type RunningSite } from '../support/site';

/**
 * deploy/nginx.conf in front of two lectern instances sharing one Redis, as the
 * README's deployment describes (tests/support/nginx.ts renders it with the test's
 * ports). Each response names the instance nginx chose (X-Upstream) and what its
 * cache did (X-Cache-Status: HIT, MISS, …), so the test can see both serve and
 * which answers came from the cache; the cache folder is the test's own.
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
        // On the fediverse too: its URLs pass through the same location (README, "On the fediverse").
        extraEnv: { TRUST_PROXY: '1', REDIS_URL: redis.url, FEDIVERSE_HANDLE: 'blog' },
      });
    instances = await Promise.all([start(), start()]);
    nginx = await startNginx(instances.map((instance) => Number(new URL(instance.baseUrl).port)) as [number, number]);
    http = nginx.http;
    https = nginx.https;
  });

  /** The instances as nginx names them in X-Upstream. */
  const upstreams = () => instances.map((instance) => new URL(instance.baseUrl).host);

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

  it("keeps lectern's compression and strong ETags, the same from either instance, and answers 304 to them", async () => {
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

    // Each query is a key of its own in nginx's cache, so each goes to an instance, in turn (and
    // lectern renders a URL with a query each time, uncompressed).
    const fresh = [];
    for (let i = 0; i < 4; i++) fresh.push(await request(http, `/api/blog?instance=${i}`));
    expect(new Set(fresh.map((answer) => answer.headers['x-upstream'])).size).toBe(2);
    expect(new Set(fresh.map((answer) => answer.headers.etag))).toEqual(new Set([plain.headers.etag]));

    const revalidations = [];
    for (let i = 0; i < 4; i++) {
      revalidations.push(await request(http, '/api/blog', { headers: { 'Accept-Encoding': 'gzip', 'If-None-Match': zipped.headers.etag ?? '' } }));
      revalidations.push(await request(http, '/api/blog', { headers: { 'If-None-Match': plain.headers.etag ?? '' } }));
    }
    expect(revalidations.map((answer) => answer.status)).toEqual(Array(8).fill(304));
    expect(revalidations.map((answer) => answer.headers.etag)).toEqual(Array(4).fill([zipped.headers.etag, plain.headers.etag]).flat());
  });

  describe('caches reads (proxy_cache)', () => {
    type Variant = { accept: string; type: string; encoding: 'br' | 'gzip' | 'identity' };
    const decoded = (bytes: Buffer, encoding: string | undefined) =>
      (encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
    const variants: Variant[] = ['br', 'gzip', 'identity'].flatMap((encoding) => [
      { accept: 'text/html', type: 'text/html', encoding: encoding as Variant['encoding'] },
      { accept: 'text/markdown', type: 'text/markdown', encoding: encoding as Variant['encoding'] },
    ]);
    const ask = (path: string, variant: Variant) =>
      request(http, path, { headers: { Accept: variant.accept, ...(variant.encoding === 'identity' ? {} : { 'Accept-Encoding': variant.encoding }) } });

    it('serves HTML and markdown of one URL, br, gzip and identity, from the cache, each to its own request only', async () => {
      // A page whose markdown twin is long enough to be compressed too.
      const path = '/docs/api';
      // What lectern answers each variant, straight from an instance.
      const direct = new Map<Variant, { body: string; etag: string | undefined }>();
      for (const variant of variants) {
        const answer = await request(instances[0]!.baseUrl, path, {
          headers: { Accept: variant.accept, ...(variant.encoding === 'identity' ? {} : { 'Accept-Encoding': variant.encoding }) },
        });
        direct.set(variant, { body: decoded(answer.bytes, answer.headers['content-encoding']), etag: answer.headers.etag });
      }
      expect(new Set([...direct.values()].map((answer) => answer.etag)).size).toBe(6);

      const statuses: string[][] = [];
      for (let round = 0; round < 4; round++) {
        const row: string[] = [];
        for (const variant of variants) {
          const answer = await ask(path, variant);
          const label = `round ${round}, ${variant.accept} ${variant.encoding}`;
          expect(answer.status, label).toBe(200);
          expect(answer.headers['content-type'], label).toMatch(new RegExp(`^${variant.type};`));
          expect(answer.headers['content-encoding'] ?? 'identity', label).toBe(variant.encoding);
          expect(answer.headers.etag, label).toBe(direct.get(variant)?.etag);
          expect(decoded(answer.bytes, answer.headers['content-encoding']), label).toBe(direct.get(variant)?.body);
          row.push(String(answer.headers['x-cache-status']));
        }
        statuses.push(row);
      }
      // The first round fills the cache; every later request is a hit.
      expect(statuses.slice(1)).toEqual(Array(3).fill(Array(variants.length).fill('HIT')));
    });

    it("gives a fediverse server the actor's and a post's ActivityStreams and a browser their pages, from the cache, each to its own Accept only", async () => {
      const activity = 'application/activity+json';
      const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
      for (const path of ['/@blog', '/blog/alpha-post']) {
        const statuses: string[] = [];
        for (let round = 0; round < 3; round++) {
          for (const accept of [activity, browser, activity]) {
            const answer = await request(http, path, { headers: { Accept: accept } });
            const label = `${path}, round ${round}, ${accept}`;
            expect(answer.status, label).toBe(200);
            expect(answer.headers['content-type'], label).toMatch(accept === activity ? /^application\/activity\+json/ : /^text\/html/);
            if (accept === activity) expect(JSON.parse(answer.body), label).toMatchObject({ type: path === '/@blog' ? 'Person' : 'Article' });
            statuses.push(String(answer.headers['x-cache-status']));
          }
        }
        // The first request of each kind fills the cache; every later one is a hit of its own kind.
        expect(statuses.slice(3), path).toEqual(Array(6).fill('HIT'));
      }
    });

    it('serves other reads from the cache too: the home page, JSON, a feed and llms.txt', async () => {
      for (const path of ['/', '/api/blog', '/atom.xml', '/llms.txt']) {
        const first = await request(http, path, { headers: { 'Accept-Encoding': 'gzip' } });
        const again = await request(http, path, { headers: { 'Accept-Encoding': 'gzip' } });
        expect(first.status, path).toBe(200);
        expect(again.headers['x-cache-status'], path).toBe('HIT');
        expect(again.headers.etag, path).toBe(first.headers.etag);
        expect(again.bytes.equals(first.bytes), path).toBe(true);
      }
    });

    it('never caches a write, /mcp, /healthz or any no-store answer', async () => {
      const from = freshAddress();
      const mcpHeaders = { Accept: 'application/json, text/event-stream' };
      for (let i = 0; i < 3; i++) {
        const health = await request(http, '/healthz');
        expect(health.headers['cache-control']).toBe('no-store');
        expect(health.headers['x-cache-status']).not.toBe('HIT');
        // Asked of an instance every time, never answered from the cache.
        expect(upstreams()).toContain(health.headers['x-upstream']);
        const download = await request(http, '/api/apps/fixture-app/download');
        expect(download.status).toBe(302);
        expect(download.headers['x-cache-status']).not.toBe('HIT');
        const written = await postJson(http, '/api/subscribe', { email: 'not-an-email' }, { from });
        expect(written.status).toBe(400);
        expect(written.headers['x-cache-status'] ?? '').not.toBe('HIT');
        expect(upstreams()).toContain(written.headers['x-upstream']);
        const mcp = await postJson(http, '/mcp', { jsonrpc: '2.0', id: i, method: 'ping' }, { from, headers: mcpHeaders });
        expect(mcp.json()).toEqual({ jsonrpc: '2.0', id: i, result: {} });
        expect(mcp.headers['x-cache-status'] ?? '').not.toBe('HIT');
      }
      // Nothing of those was written to the cache folder: every kept file is a read.
      const kept = fs
        .readdirSync(nginx.cacheDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name)).subarray(0, 2048).toString('latin1'));
      expect(kept.length).toBeGreaterThan(0);
      for (const file of kept) expect(file).not.toMatch(/KEY: http[^\n]*(\/healthz|\/mcp|\/api\/subscribe|\/download)/);
    });
  });

  it('never gives a training crawler a cached page, nor a reader its refusal', async () => {
    const gptBot = { 'User-Agent': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)' };
    const path = '/blog/alpha-post';
    // A reader fills the cache.
    await request(http, path);
    expect((await request(http, path)).headers['x-cache-status']).toBe('HIT');
    for (let i = 0; i < 3; i++) {
      const refused = await request(http, path, { headers: gptBot });
      expect(refused.status).toBe(403);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(refused.headers['cache-control']).toBe('no-store');
      // Asked of an instance every time.
      expect(refused.headers['x-cache-status']).toBe('BYPASS');
      expect(upstreams()).toContain(refused.headers['x-upstream']);
      const reader = await request(http, path);
      expect(reader.status).toBe(200);
      expect(reader.headers['x-cache-status']).toBe('HIT');
    }
    // A crawler first on a URL nobody has read: its refusal is not kept for the reader after it.
    const fresh = '/blog/beta-post.md';
    expect((await request(http, fresh, { headers: gptBot })).status).toBe(403);
    expect((await request(http, fresh)).status).toBe(200);
    // The rules stay open to it.
    for (const open of ['/robots.txt', '/license.xml', '/llms.txt']) expect((await request(http, open, { headers: gptBot })).status, open).toBe(200);
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
