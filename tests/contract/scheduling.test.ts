import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startRecorder } from '../support/recorder';
import { flushRedis, testRedisUrl } from '../support/redis';
import { freePort, ROOT, startSite, type RunningSite } from '../support/site';
import { until } from '../support/until';

/**
 * A post dated ahead goes live at its time with no rebuild and no restart. The fixture's
 * future-post is dated 2999-01-01; these servers run the contract build with their clock set
 * (LECTERN_CLOCK_OFFSET_MS) so that its time comes LEAD_MS after they are started. Each runs on
 * a copy of the build folder, as each machine of a deployment has its own: the pages Next makes
 * again are written there, out of reach of the other test files' server.
 */
const REDIS_DB = 14;
// A date without a time is midnight in the site's time zone: the fixture's is America/New_York (UTC-5 in January).
const DUE = Date.parse('2999-01-01T00:00:00-05:00');
const LEAD_MS = 40_000;
/** The bound on lectern's server, from the post's time to its being on every output. */
const BOUND_MS = 5_000;
const INDEXNOW_KEY = 'schedule-test-key-0001';

const copies: string[] = [];
const sites: RunningSite[] = [];
let recorder: Awaited<ReturnType<typeof startRecorder>>;
/** When future-post is due, on this machine's clock. */
let dueAt: number;
let offset: number;

function copyBuild(): string {
  const name = `${inject('distDir')}-schedule-${copies.length + 1}`;
  fs.rmSync(path.join(ROOT, name), { recursive: true, force: true });
  fs.cpSync(path.join(ROOT, inject('distDir')), path.join(ROOT, name), { recursive: true });
  copies.push(name);
  return name;
}

async function start(extraEnv: Record<string, string> = {}, nextStart = false, clockOffset = offset): Promise<RunningSite> {
  const site = await startSite({
    contentDir: inject('contentDir'),
    distDir: copyBuild(),
    siteUrl: inject('siteUrl'),
    port: await freePort(),
    nextStart,
    extraEnv: {
      LECTERN_CLOCK_OFFSET_MS: String(clockOffset),
      REDIS_URL: testRedisUrl(REDIS_DB),
      INDEXNOW_KEY,
      INDEXNOW_ENDPOINT: `${recorder.url}/indexnow`,
      PREWARM: '0',
      // The contract build's settings (global-setup.ts): the pages it generated are made again with them.
      POSTS_PER_PAGE: '1',
      PRERENDER_POSTS: '2',
      ...extraEnv,
    },
  });
  sites.push(site);
  return site;
}

/** Every output the post must be absent from before its time and on after it, and how to tell. */
const LISTED: [string, Record<string, string>?][] = [
  ['/'],
  ['/blog'],
  ['/tags/testing'],
  ['/tags/testing/rss.xml'],
  ['/tags/testing/index.md'],
  ['/api/blog'],
  ['/api/rss'],
  ['/atom.xml'],
  ['/feed.json'],
  ['/sitemap.xml'],
  ['/llms.txt'],
  ['/llms-full.txt'],
  ['/index.md'],
  ['/blog.md'],
  ['/api/search?q=future'],
  ['/search?q=future'],
];
/** The post's own URLs, and those only it fills (404 before its time). */
const OWN: [string, Record<string, string>?][] = [
  ['/blog/future-post'],
  ['/blog/future-post.md'],
  ['/blog/future-post/index.md'],
  ['/blog/future-post', { Accept: 'text/markdown' }],
  ['/api/blog/future-post/markdown'],
  ['/blog/future-post/opengraph-image'],
  ['/tags/unpublished-only'],
  ['/tags/unpublished-only/rss.xml'],
  ['/blog/page/5'],
];

type Seen = { status: number; body: string; etag: string | null; lastModified: string | null; cacheControl?: string | null };

async function fetchFrom(site: Pick<RunningSite, 'baseUrl'>, pathname: string, headers: Record<string, string> = {}): Promise<Seen> {
  const response = await fetch(`${site.baseUrl}${pathname}`, { headers });
  const body = Buffer.from(await response.arrayBuffer()).toString('latin1');
  const cacheControl = response.headers.get('cache-control');
  return { status: response.status, body, etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified'), cacheControl };
}

/** Every read's Cache-Control, by path: the lists, and a made-up post's 404. */
async function cacheControls(site: Pick<RunningSite, 'baseUrl'>): Promise<Record<string, string | null | undefined>> {
  const paths = [...LISTED.map(([pathname]) => pathname), '/blog/alpha-post', '/blog/alpha-post.md', '/blog/made-up-post.md', '/tags/made-up-tag/rss.xml'];
  return Object.fromEntries(await Promise.all(paths.map(async (pathname) => [pathname, (await fetchFrom(site, pathname)).cacheControl] as const)));
}

const shows = (seen: Seen) => seen.status === 200 && (seen.body.includes('future-post') || seen.body.includes('Future post'));
const hidden = (seen: Seen) => !seen.body.includes('future-post') && !seen.body.includes('Future post') && !seen.body.includes('SECRET-FUTURE-MARKER');
/** A 404 may name the URL asked for, never the post's title or text. */
const hiddenOwn = (seen: Seen) => !seen.body.includes('Future post') && !seen.body.includes('SECRET-FUTURE-MARKER');

/** The outputs that do not show the post yet (own URLs 200, lists naming it), all asked at once. */
async function everywhere(site: RunningSite): Promise<string[]> {
  const checks = [
    ...LISTED.map(async ([pathname, headers]) => (shows(await fetchFrom(site, pathname, headers)) ? undefined : pathname)),
    ...OWN.map(async ([pathname, headers]) => ((await fetchFrom(site, pathname, headers)).status === 200 ? undefined : pathname)),
  ];
  return (await Promise.all(checks)).filter((pathname) => pathname !== undefined);
}

/**
 * What /mcp (through the MCP SDK's client) says of the post: whether get_post finds it, the slugs
 * list_posts gives, and whether the `search` tool finds it by its title's word.
 */
async function overMcp(site: RunningSite): Promise<{ found: boolean; listed: string[]; searched: boolean }> {
  const client = new Client({ name: 'lectern-scheduling-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${site.baseUrl}/mcp`)));
  try {
    const post = await client.callTool({ name: 'get_post', arguments: { slug: 'future-post' } });
    const list = await client.callTool({ name: 'list_posts', arguments: {} });
    const search = await client.callTool({ name: 'search', arguments: { query: 'future' } });
    const [first] = search.content as { type: string; text: string }[];
    const results = (JSON.parse(first!.text) as { results: { id: string }[] }).results;
    return {
      found: post.isError !== true,
      listed: (list.structuredContent as { posts: { slug: string }[] }).posts.map((entry) => entry.slug),
      searched: results.some((result) => result.id === 'future-post'),
    };
  } finally {
    await client.close();
  }
}

const indexNowSubmissions = () =>
  recorder.requests.filter((request) => request.path === '/indexnow').map((request) => JSON.parse(request.body) as { urlList: string[] });

beforeAll(async () => {
  await flushRedis(testRedisUrl(REDIS_DB));
  recorder = await startRecorder(() => ({ status: 200, body: {} }));
  dueAt = Date.now() + LEAD_MS;
  offset = DUE - dueAt;
}, 30_000);

afterAll(async () => {
  await Promise.all(sites.map((site) => site.stop()));
  await recorder?.close();
  for (const name of copies) fs.rmSync(path.join(ROOT, name), { recursive: true, force: true });
});

describe('a post dated ahead, on two instances of one build sharing Redis', () => {
  const before = new Map<string, Seen>();
  /** Every read's Cache-Control while the post is due in seconds. */
  let scheduledCacheControls: Record<string, string | null | undefined> = {};
  let one: RunningSite;
  let two: RunningSite;

  it('is served nowhere before its time, whatever the client sends', async () => {
    [one, two] = await Promise.all([start(), start()]);
    expect(Date.now()).toBeLessThan(dueAt - 3_000);
    for (const site of [one, two]) {
      for (const [pathname, headers] of LISTED) {
        const seen = await fetchFrom(site, pathname, headers);
        expect(seen.status, pathname).toBe(200);
        expect(hidden(seen), pathname).toBe(true);
        before.set(`${site.baseUrl}${pathname}`, seen);
      }
      for (const [pathname, headers] of OWN) {
        const seen = await fetchFrom(site, pathname, { ...headers, 'If-None-Match': '*' });
        expect(seen.status, pathname).toBe(404);
        expect(hiddenOwn(seen), pathname).toBe(true);
      }
    }
    for (const site of [one, two]) {
      const mcp = await overMcp(site);
      expect(mcp.found).toBe(false);
      expect(mcp.searched).toBe(false);
      expect(mcp.listed).not.toContain('future-post');
    }
    // Up to the last moment: the page and a feed, asked again and again. Nothing in the feed's head
    // depends on the post's time (Cache-Control is compared below, once it is live).
    scheduledCacheControls = await cacheControls(one);
    while (Date.now() < dueAt - 250) {
      for (const site of [one, two]) {
        expect((await fetchFrom(site, '/blog/future-post')).status).toBe(404);
        const seen = await fetchFrom(site, '/feed.json');
        expect(hidden(seen)).toBe(true);
        expect(seen.cacheControl).toBe(scheduledCacheControls['/feed.json']);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The posts live at the first run are the site as it was: none is announced.
    expect(indexNowSubmissions()).toEqual([]);
  }, 60_000);

  it(
    'is on every output of both instances within 5 s of its time, with no restart',
    async () => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now())));
      // Each output of each instance is asked again and again from the post's time on; what counts is
      // when the first request that got the post was sent (its answer may take a render's time more).
      const watch = async (site: RunningSite, [pathname, headers]: [string, Record<string, string>?], own: boolean) => {
        while (Date.now() < dueAt + BOUND_MS) {
          const sent = Date.now();
          const seen = await fetchFrom(site, pathname, headers);
          if (own ? seen.status === 200 : shows(seen)) return sent - dueAt;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return `${site.baseUrl}${pathname} not within ${BOUND_MS} ms`;
      };
      // The second instance is asked each search (the API's and the search page's) once only, within the
      // bound: the first search after the time finds the post, it is not the one that starts the new index.
      const SEARCHES = ['/api/search?q=future', '/search?q=future'];
      const searchedOnce = async (search: string) => {
        await new Promise((resolve) => setTimeout(resolve, dueAt + BOUND_MS - 1_500 - Date.now()));
        const sent = Date.now();
        return shows(await fetchFrom(two, search)) ? sent - dueAt : `${two.baseUrl}${search} asked once, ${sent - dueAt} ms after the time: not found`;
      };
      const delays = await Promise.all([
        ...[one, two].flatMap((site) => [
          ...LISTED.filter(([pathname]) => site === one || !SEARCHES.includes(pathname)).map((output) => watch(site, output, false)),
          ...OWN.map((output) => watch(site, output, true)),
        ]),
        ...SEARCHES.map(searchedOnce),
      ]);
      expect(delays.filter((delay) => typeof delay === 'string')).toEqual([]);
    },
    LEAD_MS + 30_000,
  );

  it('is found, listed first and searched over MCP', async () => {
    // The first MCP search after its time already finds it: going live starts the new index.
    for (const site of [one, two])
      expect(await overMcp(site)).toMatchObject({ found: true, listed: expect.arrayContaining(['future-post']) as string[], searched: true });
    expect((await overMcp(one)).listed[0]).toBe('future-post');
  });

  it('answers a conditional GET of a list or feed with 200 and the new item, with new validators', async () => {
    for (const site of [one, two]) {
      for (const pathname of ['/feed.json', '/api/rss', '/atom.xml', '/tags/testing/rss.xml', '/blog', '/api/blog', '/sitemap.xml']) {
        const old = before.get(`${site.baseUrl}${pathname}`)!;
        const revalidated = await fetchFrom(site, pathname, { 'If-None-Match': old.etag ?? '' });
        expect(revalidated.status, pathname).toBe(200);
        expect(shows(revalidated), pathname).toBe(true);
        expect(revalidated.etag, pathname).not.toBe(old.etag);
        if (old.lastModified) {
          expect((await fetchFrom(site, pathname, { 'If-Modified-Since': old.lastModified })).status, pathname).toBe(200);
          expect(Date.parse(revalidated.lastModified ?? ''), pathname).toBeGreaterThan(Date.parse(old.lastModified));
        }
      }
    }
  });

  it('sends every read with the same Cache-Control whether a post is due in seconds, in centuries or not at all', async () => {
    const live = await cacheControls(one);
    // The suite's own server runs the same build with the post in 2999.
    const farAhead = await cacheControls({ baseUrl: inject('baseUrl') });
    expect(Object.values(live).every((value) => typeof value === 'string' && value.length > 0)).toBe(true);
    expect(scheduledCacheControls).toEqual(live);
    expect(farAhead).toEqual(live);
  });

  it('puts the post first, newest first, and counts it in the pages', async () => {
    const blog = JSON.parse((await fetchFrom(one, '/api/blog')).body) as { posts: { slug: string }[] };
    expect(blog.posts[0]?.slug).toBe('future-post');
    // One post a page: five posts now fill /blog/page/5, whose post is the oldest.
    expect((await fetchFrom(one, '/blog/page/5')).body).toContain('alpha-post');
  });

  it('is announced to IndexNow once, by one of the two instances', async () => {
    await until(() => indexNowSubmissions().length > 0, 'the IndexNow announcement');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(indexNowSubmissions()).toEqual([expect.objectContaining({ urlList: [`${inject('siteUrl')}/blog/future-post`] })]);
  });

  it('is served from the first request by an instance started after its time, which announces nothing again', async () => {
    const late = await start();
    expect(await everywhere(late)).toEqual([]);
    await one.stop();
    const restarted = await start();
    expect(shows(await fetchFrom(restarted, '/feed.json'))).toBe(true);
    expect(indexNowSubmissions()).toHaveLength(1);
  }, 60_000);
});

describe('a post dated ahead on a platform host (next start, PLATFORM_MODE), made live by its cron job', () => {
  const CRON_SECRET = 'cron-secret-for-the-contract-test';
  const cron = (site: RunningSite, authorization?: string) =>
    // The platform's edge overwrites x-real-ip with the client address (CLIENT_IP_HEADER below): /api/publish is limited by it.
    fetch(`${site.baseUrl}/api/publish`, { headers: { 'x-real-ip': '203.0.113.50', ...(authorization ? { Authorization: authorization } : {}) } });

  it('is hidden before its time, and on every output once the cron job has called /api/publish after it', async () => {
    const due = Date.now() + 30_000;
    const host = await start({ PLATFORM_MODE: '1', SMTP_URL: 'smtp://127.0.0.1:9', CLIENT_IP_HEADER: 'x-real-ip', CRON_SECRET }, true, DUE - due);
    expect((await cron(host)).status).toBe(401);
    expect((await cron(host, 'Bearer not-the-secret')).status).toBe(401);
    const early = await cron(host, `Bearer ${CRON_SECRET}`);
    expect(early.status).toBe(200);
    expect(early.headers.get('cache-control')).toBe('no-store');
    expect(await early.json()).toMatchObject({ revalidated: false, live: 4 });
    expect(Date.now()).toBeLessThan(due - 1_000);
    expect(hidden(await fetchFrom(host, '/feed.json'))).toBe(true);
    expect((await fetchFrom(host, '/blog/future-post')).status).toBe(404);

    await new Promise((resolve) => setTimeout(resolve, due - Date.now() + 100));
    // The post's own URLs follow the clock; the lists wait for the cron job's next minute.
    expect((await fetchFrom(host, '/blog/future-post')).status).toBe(200);
    const published = await cron(host, `Bearer ${CRON_SECRET}`);
    expect(await published.json()).toMatchObject({ revalidated: true, live: 5 });
    expect(await everywhere(host)).toEqual([]);
  }, 90_000);
});
