import fs from 'node:fs';
import path from 'node:path';
import { Article, Create } from '@fedify/fedify/vocab';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFediversePeer, type FediversePeer } from '../support/fediverse-peer';
import { FUTURE_POST_DUE } from '../support/newsletter';
import { startPlatformEdge, type PlatformEdge } from '../support/platform-edge';
import { startRedis } from '../support/redis';
import { copyContractBuild, freePort, ROOT, startSite, type RunningSite } from '../support/site';
import { startSmtp } from '../support/smtp';
import { startUpstashStandIn, type UpstashStandIn } from '../support/upstash';
import { until } from '../support/until';

/**
 * The site on the fediverse without lectern's server (PLATFORM_MODE): two `next start` instances
 * behind the stand-in of the platform's edge (tests/support/platform-edge.ts), whose URL is the
 * site's, the store and Fedify's queue on the Upstash stand-in, and a second ActivityPub server
 * built with Fedify on loopback (tests/support/fediverse-peer.ts). Nothing runs between requests:
 * what is queued is sent by the request that queued it (after its answer) or by a cron call of
 * /api/publish. The clock is set so that the fixture's future-post is due LEAD_MS after the start.
 */
const LEAD_MS = 60_000;
const CRON_SECRET = 'cron-secret-for-the-fediverse-platform-test';
const AS = 'application/activity+json';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let redis: Awaited<ReturnType<typeof startRedis>>;
let upstash: UpstashStandIn;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let peer: FediversePeer;
let edge: PlatformEdge;
let instances: RunningSite[] = [];
let build: string;
let host: string;
let dueAt: number;

beforeAll(async () => {
  redis = await startRedis();
  upstash = await startUpstashStandIn(redis.url);
  smtp = await startSmtp();
  peer = await startFediversePeer();
  // Next writes the pages it makes again into the build folder: these instances get a copy of their own.
  build = copyContractBuild(path.join(ROOT, inject('distDir')), 'fediverse-platform');
  const edgePort = await freePort();
  // The site's URL is the edge's: every ID and handle is made on it, and the peer reaches the site there.
  const siteUrl = `http://127.0.0.1:${edgePort}`;
  host = `127.0.0.1:${edgePort}`;
  dueAt = Date.now() + LEAD_MS;
  const env = {
    PLATFORM_MODE: '1',
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: upstash.token,
    SMTP_URL: smtp.url,
    CLIENT_IP_HEADER: 'x-real-ip',
    CRON_SECRET,
    LECTERN_CLOCK_OFFSET_MS: String(FUTURE_POST_DUE - dueAt),
    FEDIVERSE_LOOPBACK: '1',
    // The contract build's settings (global-setup.ts): the pages it generated are made again with them.
    POSTS_PER_PAGE: '1',
    PRERENDER_POSTS: '2',
    PREWARM: '0',
  };
  const started = async () =>
    startSite({ contentDir: inject('contentDir'), distDir: path.relative(ROOT, build), siteUrl, port: await freePort(), nextStart: true, extraEnv: env });
  instances = await Promise.all([started(), started()]);
  edge = await startPlatformEdge(
    instances.map((instance) => instance.baseUrl),
    edgePort,
  );
}, 120_000);

afterAll(async () => {
  await edge?.close();
  await Promise.all(instances.map((instance) => instance.stop()));
  await peer?.stop();
  await upstash?.close();
  await smtp?.close();
  await redis?.stop();
  if (build) fs.rmSync(build, { recursive: true, force: true });
});

const get = (pathname: string, accept = AS) => fetch(`${edge.url}${pathname}`, { headers: { Accept: accept } });
/** A cron call of /api/publish, as the platform's scheduler makes it (through the edge). */
async function cron(): Promise<{ wentLive: string[] }> {
  const response = await fetch(`${edge.url}/api/publish`, { headers: { Authorization: `Bearer ${CRON_SECRET}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { wentLive: string[] };
}
const creates = () => peer.received.filter((entry) => entry.type === 'Create');

describe('the site on the fediverse on a platform host (next start, PLATFORM_MODE, Upstash)', () => {
  it('is found by WebFinger and its actor answers ActivityStreams, while a browser on the same URL gets the home page', async () => {
    // The first cron call records the posts live now (none of them is announced).
    expect((await cron()).wentLive).toEqual([]);
    // The edge takes turns: each URL is asked of both instances.
    for (let turn = 0; turn < 2; turn += 1) {
      const finger = await get(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:blog@${host}`)}`, 'application/jrd+json');
      expect(finger.status).toBe(200);
      const links = ((await finger.json()) as { links: { rel: string; type?: string; href: string }[] }).links;
      expect(links).toContainEqual(expect.objectContaining({ rel: 'self', type: AS, href: `${edge.url}/@blog` }));
      const actor = await get('/@blog');
      expect(actor.status).toBe(200);
      expect(actor.headers.get('content-type')).toMatch(/^application\/(activity|ld)\+json/);
      expect(actor.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await actor.json()).toMatchObject({ type: 'Person', preferredUsername: 'blog', name: 'Fixture & Co', inbox: `${edge.url}/@blog/inbox` });
    }
    const page = await get('/@blog', BROWSER);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('Fixture &amp; Co');
    expect(JSON.stringify(await (await get('/.well-known/nodeinfo', 'application/json')).json())).toContain('/nodeinfo/2.1');
  });

  it("answers a live post's URL with its Article to ActivityStreams and its page to a browser, and a post dated ahead with 404", async () => {
    const article = await get('/blog/alpha-post');
    expect(article.status).toBe(200);
    expect(await article.json()).toMatchObject({ type: 'Article', url: `${edge.url}/blog/alpha-post`, attributedTo: `${edge.url}/@blog` });
    const page = await get('/blog/alpha-post', BROWSER);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(Date.now()).toBeLessThan(dueAt - 3_000);
    expect((await get('/blog/future-post')).status).toBe(404);
  });

  it('refuses an unsigned inbox post with 401 and an activity over 256 KiB with 413', async () => {
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', type: 'Follow', actor: peer.actorUrl, object: `${edge.url}/@blog` };
    for (const inbox of ['/@blog/inbox', '/inbox']) {
      const unsigned = await fetch(`${edge.url}${inbox}`, { method: 'POST', headers: { 'Content-Type': AS }, body: JSON.stringify(follow) });
      expect(unsigned.status, inbox).toBe(401);
    }
    const large = { ...follow, summary: 'x'.repeat(300 * 1024) };
    const refused = await fetch(`${edge.url}/inbox`, {
      method: 'POST',
      headers: await peer.signedPost(`${edge.url}/inbox`, large),
      body: JSON.stringify(large),
    });
    expect(refused.status).toBe(413);
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  });

  it(
    'accepts a follow, and delivers a post that goes live through a cron call to the follower once, signed',
    async () => {
      const actor = await peer.lookup(`blog@${host}`);
      expect(actor.id?.href).toBe(`${edge.url}/@blog`);
      await peer.follow(actor);
      // The Accept goes out after the inbox's answer, from the instance that took the Follow.
      await until(() => peer.received.some((entry) => entry.type === 'Accept'), 'the follow accepted', 20_000);
      expect(peer.received.find((entry) => entry.type === 'Accept')).toMatchObject({ actor: `${edge.url}/@blog` });
      expect(((await (await get('/@blog/followers')).json()) as { totalItems: number }).totalItems).toBe(1);

      // Nothing runs between requests: the post goes live at the first cron call after its time.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now() + 500)));
      expect(creates()).toEqual([]);
      expect((await cron()).wentLive).toEqual([`${edge.url}/blog/future-post`]);
      await until(() => creates().length > 0, 'the post delivered', 20_000);
      // Later calls (on either instance) send nothing again.
      expect((await cron()).wentLive).toEqual([]);
      expect((await cron()).wentLive).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(creates()).toHaveLength(1);
      const article = await (creates()[0]!.activity as Create).getObject();
      expect(article).toBeInstanceOf(Article);
      expect((article as Article).name?.toString()).toBe('Future post');
      expect((article as Article).url?.href).toBe(`${edge.url}/blog/future-post`);
      // Through the shared inbox, signed, and taken (Fedify verified the signature before recording it).
      expect(peer.posts.filter((post) => post.path === '/inbox')).toEqual([{ path: '/inbox', status: 202, signed: true }]);
      expect(await (await get('/blog/future-post')).json()).toMatchObject({ type: 'Article', name: 'Future post' });
    },
    LEAD_MS + 30_000,
  );
});
