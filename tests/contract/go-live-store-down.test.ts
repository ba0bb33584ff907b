import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { request } from '../support/client';
import { startNginx, type RunningNginx } from '../support/nginx';
import { startRecorder } from '../support/recorder';
import { startRedis } from '../support/redis';
import { copyContractBuild, freePort, ROOT, startSite, type RunningSite } from '../support/site';
import { startSmtp, type ReceivedMail } from '../support/smtp';
import { until } from '../support/until';

/**
 * A post's time comes while the Redis that holds the store is stopped, with the shipped nginx
 * (deploy/nginx.conf) in front and its cache primed: going live depends on the content and the
 * clock only, so every output through nginx shows the post within the 60 s promised for caches;
 * its announcements (IndexNow, the newsletter to a confirmed subscriber) wait for the store and
 * happen once it is back, once each. The fixture's future-post is dated 2999-01-01; the server's
 * clock is set (LECTERN_CLOCK_OFFSET_MS) so that its time comes LEAD_MS after the test starts.
 */
const DUE = Date.parse('2999-01-01T00:00:00-05:00');
/** Time to start the server and nginx and prime nginx's cache before the post's time (a busy machine takes most of it). */
const LEAD_MS = 50_000;
/** What the README promises for caches in front of lectern. */
const CACHE_BOUND_MS = 60_000;
const INDEXNOW_KEY = 'store-down-test-key-0001';
const SUBSCRIBER = 'reader@example.com';

/** Every output that lists the post once it is live, and its own URLs (404 before). */
const LISTED = [
  '/',
  '/blog',
  '/blog.md',
  '/api/blog',
  '/api/rss',
  '/atom.xml',
  '/feed.json',
  '/sitemap.xml',
  '/llms.txt',
  '/index.md',
  '/tags/testing',
  '/tags/testing/rss.xml',
];
const OWN = [
  '/blog/future-post',
  '/blog/future-post.md',
  '/api/blog/future-post/markdown',
  '/tags/unpublished-only',
  '/tags/unpublished-only/rss.xml',
  '/blog/page/5',
];

const state: { site?: RunningSite; nginx?: RunningNginx; redis?: Awaited<ReturnType<typeof startRedis>>; copy?: string; dirs: string[] } = { dirs: [] };
let smtp: Awaited<ReturnType<typeof startSmtp>> | undefined;
let recorder: Awaited<ReturnType<typeof startRecorder>> | undefined;

afterAll(async () => {
  await state.nginx?.stop();
  await state.site?.stop();
  await state.redis?.stop();
  await smtp?.close();
  await recorder?.close();
  for (const dir of [...state.dirs, ...(state.copy ? [state.copy] : [])]) fs.rmSync(dir, { recursive: true, force: true });
});

/** A confirmed subscriber, written straight into the store. */
async function seedSubscriber(url: string, email: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  await client.hSet(`lectern:store:subscriber:${email}`, { email, status: 'confirmed', created: '1', confirmed: '1', updated: '1' });
  await client.zAdd('lectern:store:subscribers', { score: 1, value: email });
  await client.quit();
}

const newsletterMails = (messages: ReceivedMail[]) =>
  messages.filter(
    (mail) => mail.envelopeTo.includes(SUBSCRIBER) && mail.headers.some((header) => header.key === 'list-id') && !mail.subject?.startsWith('Confirm'),
  );
const indexNowPings = () => recorder?.requests.filter((recorded) => recorded.path === '/indexnow') ?? [];

/** Every read's Cache-Control as lectern sends it, by path: the lists, a post, and made-up values' 404s. */
async function cacheControls(base: string): Promise<Record<string, string | undefined>> {
  const paths = [...LISTED, '/blog/alpha-post', '/blog/alpha-post.md', '/blog/made-up-post.md', '/tags/made-up-tag/rss.xml'];
  const answers = await Promise.all(paths.map(async (pathname) => [pathname, (await request(base, pathname)).headers['cache-control']] as const));
  return Object.fromEntries(answers);
}

/** Whether nginx's answer for a path shows the post: listed in a list, or its own URL found. */
async function shows(base: string, pathname: string): Promise<boolean> {
  const answer = await request(base, pathname);
  if (OWN.includes(pathname)) return answer.status === 200;
  return answer.status === 200 && (answer.body.includes('future-post') || answer.body.includes('Future post'));
}

describe('a post going live while the store is down, behind the shipped nginx', () => {
  it(
    'is on every output through nginx within 60 s, and announced once each after the store is back',
    { timeout: LEAD_MS + CACHE_BOUND_MS + 90_000 },
    async () => {
      const dueAt = Date.now() + LEAD_MS;
      const redisDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-redis-kept-'));
      state.dirs.push(redisDir);
      state.redis = await startRedis({ dir: redisDir });
      const redisPort = state.redis.port;
      await seedSubscriber(state.redis.url, SUBSCRIBER);
      smtp = await startSmtp();
      recorder = await startRecorder(() => ({ status: 200, body: {} }));
      // A copy of the build: the pages Next makes again at the post's time are written there.
      state.copy = copyContractBuild(path.join(ROOT, inject('distDir')), 'store-down');
      state.site = await startSite({
        contentDir: inject('contentDir'),
        distDir: path.relative(ROOT, state.copy),
        siteUrl: inject('siteUrl'),
        port: await freePort(),
        extraEnv: {
          LECTERN_CLOCK_OFFSET_MS: String(DUE - dueAt),
          REDIS_URL: state.redis.url,
          TRUST_PROXY: '1',
          SMTP_URL: smtp.url,
          INDEXNOW_KEY,
          INDEXNOW_ENDPOINT: `${recorder.url}/indexnow`,
          NEWSLETTER_CHECK_MS: '500',
          MAIL_POLL_MS: '200',
          PREWARM: '0',
          // The contract build's settings (global-setup.ts).
          POSTS_PER_PAGE: '1',
          PRERENDER_POSTS: '2',
        },
      });
      const port = Number(new URL(state.site.baseUrl).port);
      state.nginx = await startNginx([port]);
      const through = state.nginx.http;
      // The first run on the store has recorded its moment: the newsletter takes the posts live now as the site as it was.
      await until(() => state.site!.output().includes('newsletter: first run'), 'the newsletter first run');

      // nginx's cache primed with every output as it is before the post's time.
      await Promise.all(
        [...LISTED, ...OWN].map(async (pathname) => {
          await request(through, pathname);
          expect(await shows(through, pathname), pathname).toBe(false);
        }),
      );
      expect(Date.now()).toBeLessThan(dueAt - 5_000);
      // Seconds before the post's time, every read's Cache-Control.
      const scheduled = await cacheControls(state.site.baseUrl);

      // The store goes away a few seconds before the post's time.
      await new Promise((resolve) => setTimeout(resolve, dueAt - 4_000 - Date.now()));
      await state.redis.stop();

      const missing = new Set([...LISTED, ...OWN]);
      await until(
        async () => {
          await Promise.all(
            [...missing].map(async (pathname) => {
              if (await shows(through, pathname)) missing.delete(pathname);
            }),
          );
          return missing.size === 0;
        },
        'every output through nginx to show the post',
        dueAt + CACHE_BOUND_MS - Date.now(),
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}: still without it ${[...missing].join(' ')}`);
      });
      expect(Date.now() - dueAt).toBeLessThanOrEqual(CACHE_BOUND_MS);
      // The same Cache-Control with the post due in seconds, live with the store down, or due in centuries
      // (the suite's own server, the same build with the post in 2999): nothing in it names the post's time.
      expect(Object.values(scheduled).every((value) => typeof value === 'string' && value.length > 0)).toBe(true);
      expect(await cacheControls(state.site.baseUrl)).toEqual(scheduled);
      expect(await cacheControls(inject('baseUrl'))).toEqual(scheduled);
      // Nothing was announced while the store was down.
      expect(indexNowPings()).toEqual([]);
      expect(newsletterMails(smtp.messages)).toEqual([]);

      // The store comes back, with what it held: each announcement happens, once.
      state.redis = await startRedis({ port: redisPort, dir: redisDir });
      await until(() => indexNowPings().length > 0 && newsletterMails(smtp!.messages).length > 0, 'the announcements after the store is back', 30_000);
      // Long enough for the scheduler's retry (every second) and the newsletter's check (every 500 ms) to come again.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(indexNowPings().map((recorded) => (JSON.parse(recorded.body) as { urlList: string[] }).urlList)).toEqual([
        [`${inject('siteUrl')}/blog/future-post`],
      ]);
      const mails = newsletterMails(smtp.messages);
      expect(mails).toHaveLength(1);
      expect(mails[0]?.subject).toContain('Future post');
    },
  );
});
