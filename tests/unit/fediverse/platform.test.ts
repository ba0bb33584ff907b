import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NextRequest } from 'next/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT } from '@/lib/fediverse/kept';
import { platformFediverse, type PlatformFediverse } from '@/lib/fediverse/platform';
import { redisKvStore } from '@/lib/fediverse/redis-stores';
import { platformFediverseResponse } from '@/lib/fediverse/route';
import { failFastRedis, redisEvaluator, type FailFastRedis } from '@/lib/redis/client';
import { parseSettings } from '@/lib/settings';
import { proxy } from '@/proxy';
import { startRedis } from '../../support/redis';
import { setWriteRouteSettings } from '../../support/write-routes';
import { memoryLimiter } from '@/lib/limits/limiter';

// This file's process runs as a platform host (proxy.ts reads the settings on its first request).
setWriteRouteSettings({ PLATFORM_MODE: '1' });

const AS = 'application/activity+json';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Where proxy.ts sends a request: the path it rewrites to (with its query), or `page` when it lets the page answer. */
function routed(path: string, accept: string): string {
  const response = proxy(new NextRequest(`http://localhost:3000${path}`, { headers: { accept } }));
  const rewrite = response.headers.get('x-middleware-rewrite');
  return rewrite ? `${new URL(rewrite).pathname}${new URL(rewrite).search}` : response.headers.get('x-middleware-next') ? 'page' : `status ${response.status}`;
}

describe("proxy.ts on a platform host, for the fediverse's URLs", () => {
  it('sends WebFinger, NodeInfo, the actor and its collections, and a post asked for as ActivityStreams to the fediverse route', () => {
    expect(routed('/.well-known/webfinger?resource=acct%3Ablog%40localhost%3A3000', 'application/jrd+json')).toBe(
      '/api/fediverse/.well-known/webfinger?resource=acct%3Ablog%40localhost%3A3000',
    );
    expect(routed('/.well-known/nodeinfo', 'application/json')).toBe('/api/fediverse/.well-known/nodeinfo');
    expect(routed('/@blog', AS)).toBe('/api/fediverse/@blog');
    expect(routed('/@blog/outbox', AS)).toBe('/api/fediverse/@blog/outbox');
    expect(routed('/blog/alpha-post', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"')).toBe('/api/fediverse/blog/alpha-post');
  });

  it("gives a browser on the actor's URL the home page, and a browser on a post its page", () => {
    expect(routed('/@blog', BROWSER)).toBe('/');
    expect(routed('/blog/alpha-post', BROWSER)).toBe('page');
  });
});

describe("the fediverse route's answers on a platform", () => {
  const settings = parseSettings({ SITE_URL: 'https://blog.example', PLATFORM_MODE: '1' });
  const asked: string[] = [];
  const fake: PlatformFediverse = {
    respond: async (_request, pathname, search) => {
      asked.push(`${pathname}${search}`);
      return new Response('{"type":"Person"}', { headers: { 'Content-Type': 'application/activity+json' } });
    },
    deliver: async () => undefined,
    work: async () => ({ handled: 0, budgetSpent: false }),
  };

  it('hands Fedify the URL that was asked, and answers with the headers every response gets and Vary: Accept', async () => {
    const answer = await platformFediverseResponse(
      new Request('https://blog.example/api/fediverse/@blog?page=1', { headers: { accept: AS } }),
      () => fake,
      settings,
    );
    expect(asked).toEqual(['/@blog?page=1']);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ type: 'Person' });
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('vary')).toBe('Accept');
  });

  it('answers 404 for a browser on the route, with FEDIVERSE=0, and where the site is not in platform mode', async () => {
    asked.length = 0;
    const browser = await platformFediverseResponse(
      new Request('https://blog.example/api/fediverse/@blog', { headers: { accept: BROWSER } }),
      () => fake,
      settings,
    );
    expect(browser.status).toBe(404);
    const off = await platformFediverseResponse(
      new Request('https://blog.example/api/fediverse/@blog', { headers: { accept: AS } }),
      () => undefined,
      settings,
    );
    expect(off.status).toBe(404);
    const notPlatform = parseSettings({ SITE_URL: 'https://blog.example' });
    const server = await platformFediverseResponse(
      new Request('https://blog.example/api/fediverse/@blog', { headers: { accept: AS } }),
      () => fake,
      notPlatform,
    );
    expect(server.status).toBe(404);
    expect(asked).toEqual([]);
  });
});

describe("the platform's passes over the fediverse's queue", () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let client: FailFastRedis;
  const inboxes: Server[] = [];
  /** How many times each inbox was posted to. */
  const posted = new Map<string, number>();
  const FOLLOWERS = 12;
  /** How long each inbox takes to answer: a pass of a second handles only some of them (four are sent at a time). */
  const ANSWER_MS = 600;

  beforeAll(async () => {
    redis = await startRedis();
    client = failFastRedis(redis.url, { commandTimeoutMs: 5000 });
    for (let index = 0; index < FOLLOWERS; index += 1) {
      const server = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          setTimeout(() => {
            const at = `${(server.address() as AddressInfo).port}${req.url}`;
            posted.set(at, (posted.get(at) ?? 0) + 1);
            res.writeHead(202).end();
          }, ANSWER_MS);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      inboxes.push(server);
    }
  });

  afterAll(async () => {
    await Promise.all(inboxes.map((server) => new Promise((resolve) => server.close(resolve))));
    await client?.close();
    await redis?.stop();
  });

  const post = {
    slug: 'new',
    title: 'New',
    description: 'A new post.',
    tags: [],
    dateMillis: 1,
    updatedMillis: undefined,
    url: 'https://blog.example/blog/new',
  };
  const limiter = memoryLimiter({ windowScale: 1 });
  /** The posts live now: the new one from its minute on. */
  let live: (typeof post)[] = [];
  const make = () =>
    platformFediverse({
      redis: redisEvaluator({ kind: 'redis', redis: client }),
      origin: 'https://blog.example',
      handle: 'blog',
      build: 'build-1',
      allowPrivateAddress: true,
      blockedDomains: [],
      limiter: () => limiter,
      deployment: { trustProxy: 0, clientIpHeader: 'x-real-ip', platform: true },
      now: () => Date.now(),
      posts: () => live as never[],
      profile: () => ({ name: 'A site', summary: 'About it.' }),
      log: { warn: () => undefined, log: () => undefined },
    });

  it('on a site nobody has looked up, queues nothing and a pass ends at once', async () => {
    const fediverse = make();
    await fediverse.deliver(['new']);
    const started = Date.now();
    expect(await fediverse.work(30_000)).toEqual({ handled: 0, budgetSpent: false });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('delivers within its budget and leaves the rest to the next pass, which sends each inbox its copy once and ends when the queue is idle', async () => {
    const fediverse = make();
    // A server reads the actor (its keys are made then), and followers come.
    expect((await fediverse.respond(new Request('https://blog.example/api/fediverse/@blog', { headers: { accept: AS } }), '/@blog', '')).status).toBe(200);
    const kv = redisKvStore(redisEvaluator({ kind: 'redis', redis: client }));
    for (const server of inboxes) {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await kv.set([...KEPT.followers, `${base}/u/reader`], { id: `${base}/u/reader`, inbox: `${base}/u/reader/inbox`, sharedInbox: null });
    }
    // The pass after the first follow records when the site went on the fediverse; the post goes live after that.
    expect(await fediverse.work(5_000)).toEqual({ handled: 0, budgetSpent: false });
    post.dateMillis = Date.now();
    live = [post];
    await fediverse.deliver(['new']);

    const first = await fediverse.work(1_000);
    expect(first.budgetSpent).toBe(true);
    const sentFirst = [...posted.values()].reduce((sum, count) => sum + count, 0);
    expect(sentFirst).toBeLessThan(FOLLOWERS);

    const started = Date.now();
    const second = await fediverse.work(30_000);
    expect(second.budgetSpent).toBe(false);
    expect(posted.size).toBe(FOLLOWERS);
    expect([...posted.values()].every((count) => count === 1)).toBe(true);
    // Idle for a second, the pass ends: it does not wait out its budget.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await fediverse.work(30_000)).toEqual({ handled: 0, budgetSpent: false });
  });
});
