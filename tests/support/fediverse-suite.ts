import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Article, Create } from '@fedify/fedify/vocab';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFediversePeer, type FediversePeer } from './fediverse-peer';
import { copyContractBuild, freePort, ROOT, startSite, type RunningSite } from './site';
import { until } from './until';

/** Where the site under test keeps the fediverse's store and queue: the settings that say so, and how to stop what they need. */
export type FediverseStoreUnderTest = { env: Record<string, string>; stop?: () => Promise<void> };

/**
 * The contract of the site on the fediverse (tests/contract/fediverse*.test.ts, one per store), over
 * real HTTP, with two other ActivityPub servers built with Fedify on loopback (./fediverse-peer.ts).
 * The site runs on a copy of the contract build with its clock set so that the fixture's future-post
 * goes live LEAD_MS after it starts: one peer follows and stays, the other follows and unfollows
 * before that time; only the first gets the post.
 */
// A date without a time is midnight in the site's time zone: the fixture's is America/New_York (UTC-5 in January).
const DUE = Date.parse('2999-01-01T00:00:00-05:00');
// Room for a slow start on a busy machine (the first fediverse request loads Fedify, the first read of the actor makes its keys): the follows must be in before the post goes live.
const LEAD_MS = 60_000;
const AS = 'application/activity+json';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
/** The fixture's first profile link (tests/fixtures/content/site.yaml) as HTML writes it: `&` escaped, `<` and `>` encoded by the URL. */
const PROFILE_HREF = 'https://code.example/test-author?tab=repos&amp;q=%3Cb%3E';
/** The Vary of a URL that is both a page and an ActivityStreams document (lib/server/response-headers.ts, NEGOTIATED_VARY). */
const PAGE_VARY = 'rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch, Accept, Accept-Encoding';

export function fediverseSuite(name: string, storeUnderTest: () => Promise<FediverseStoreUnderTest>): void {
  let site: RunningSite;
  let host: string;
  let follower: FediversePeer;
  let leaver: FediversePeer;
  /** A server on a blocked domain (FEDIVERSE_BLOCKED_DOMAINS=localhost): named `localhost`, on loopback like the others. */
  let blockedPeer: FediversePeer;
  let build: string;
  /** When future-post is due, on this machine's clock. */
  let dueAt: number;
  let store: FediverseStoreUnderTest;

  beforeAll(async () => {
    store = await storeUnderTest();
    [follower, leaver, blockedPeer] = await Promise.all([startFediversePeer(), startFediversePeer(), startFediversePeer({ host: 'localhost' })]);
    build = copyContractBuild(path.join(ROOT, inject('distDir')), 'fediverse');
    const port = await freePort();
    // The site's own URL: every ID and handle is made on it.
    const siteUrl = `http://127.0.0.1:${port}`;
    host = `127.0.0.1:${port}`;
    dueAt = Date.now() + LEAD_MS;
    site = await startSite({
      contentDir: inject('contentDir'),
      distDir: path.relative(ROOT, build),
      siteUrl,
      port,
      extraEnv: {
        LECTERN_CLOCK_OFFSET_MS: String(DUE - dueAt),
        FEDIVERSE_HANDLE: 'blog',
        FEDIVERSE_LOOPBACK: '1',
        FEDIVERSE_BLOCKED_DOMAINS: 'localhost',
        PREWARM: '0',
        // The contract build's settings (global-setup.ts): the pages it generated are made again with them.
        POSTS_PER_PAGE: '1',
        PRERENDER_POSTS: '2',
        ...store.env,
      },
    });
  });

  afterAll(async () => {
    await site?.stop();
    await Promise.all([follower?.stop(), leaver?.stop(), blockedPeer?.stop()]);
    if (build) fs.rmSync(build, { recursive: true, force: true });
    await store?.stop?.();
  });

  const get = (pathname: string, accept = AS) => fetch(`${site.baseUrl}${pathname}`, { headers: { Accept: accept } });
  const json = async (pathname: string, accept = AS) => (await (await get(pathname, accept)).json()) as Record<string, unknown>;

  /** Every activity of the outbox, page by page. */
  async function outboxItems(): Promise<{ type: string; object: { id: string; url: string } }[]> {
    const outbox = await json('/@blog/outbox');
    const items: { type: string; object: { id: string; url: string } }[] = [];
    for (let next = outbox.first as string | undefined; next;) {
      const page = await json(new URL(next).pathname + new URL(next).search);
      items.push(...(page.orderedItems as typeof items));
      next = page.next as string | undefined;
    }
    return items;
  }

  const creates = (peer: FediversePeer) => peer.received.filter((entry) => entry.type === 'Create');

  /** `npm run fediverse -- …` as the author runs it (the script under tsx), on the site's store: DATA_DIR, or its REDIS_URL. */
  function fediverseCommand(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/fediverse.ts', ...args], {
        cwd: ROOT,
        env: { ...process.env, SITE_URL: site.baseUrl, CONTENT_DIR: inject('contentDir'), DATA_DIR: site.dataDir, REDIS_URL: '', ...store.env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  }

  /** The reactions element of a post's page as a browser gets it (the HTML the server sends, no script run). */
  async function reactionsOn(slug: string): Promise<string> {
    const page = await (await get(`/blog/${slug}`, 'text/html')).text();
    const at = page.indexOf('data-fediverse="reactions"');
    if (at === -1) throw new Error(`no reactions element on /blog/${slug}`);
    return page.slice(at, page.indexOf('</section>', at));
  }

  describe(`the site on the fediverse, ${name}`, () => {
    it('is found by WebFinger as @blog@host, and its actor answers ActivityStreams, while a browser on the same URL gets the home page', async () => {
      const finger = await get(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:blog@${host}`)}`, 'application/jrd+json');
      expect(finger.status).toBe(200);
      const links = ((await finger.json()) as { links: { rel: string; type?: string; href: string }[] }).links;
      expect(links).toContainEqual(expect.objectContaining({ rel: 'self', type: AS, href: `${site.baseUrl}/@blog` }));

      for (const accept of [AS, 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"']) {
        const actor = await get('/@blog', accept);
        expect(actor.status).toBe(200);
        expect(actor.headers.get('content-type')).toMatch(/^application\/(activity|ld)\+json/);
        expect(await actor.json()).toMatchObject({ type: 'Person', preferredUsername: 'blog', name: 'Fixture & Co' });
      }
      // The author's profiles (content/site.yaml `links`) as its profile fields, each a rel=me link, escaped.
      expect((await json('/@blog')).attachment).toEqual([
        {
          type: 'PropertyValue',
          name: 'Code & notes',
          value: `<a href="${PROFILE_HREF}" rel="me nofollow noopener noreferrer" target="_blank">${PROFILE_HREF.replace('https://', '')}</a>`,
        },
        {
          type: 'PropertyValue',
          name: 'Mastodon',
          value: '<a href="https://social.example/@testauthor" rel="me nofollow noopener noreferrer" target="_blank">social.example/@testauthor</a>',
        },
      ]);
      const page = await get('/@blog', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('Fixture &amp; Co');

      const nodeInfo = await json('/.well-known/nodeinfo', 'application/json');
      expect(JSON.stringify(nodeInfo)).toContain('/nodeinfo/2.1');
    });

    it('refuses an unsigned inbox post, and one whose body is not what was signed', async () => {
      const follow = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${follower.url}/users/reader#unsigned`,
        type: 'Follow',
        actor: `${follower.url}/users/reader`,
        object: `${site.baseUrl}/@blog`,
      };
      for (const inbox of ['/@blog/inbox', '/inbox']) {
        const unsigned = await fetch(`${site.baseUrl}${inbox}`, { method: 'POST', headers: { 'Content-Type': AS }, body: JSON.stringify(follow) });
        expect(unsigned.status).toBe(401);
      }
      // A signed activity is taken (one the site does not act on: 202); the same signature on another body is refused.
      const like = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${follower.url}/users/reader#like`,
        type: 'Like',
        actor: `${follower.url}/users/reader`,
        object: `${site.baseUrl}/blog/alpha-post`,
      };
      const headers = await follower.signedPost(`${site.baseUrl}/@blog/inbox`, like);
      const tampered = await fetch(`${site.baseUrl}/@blog/inbox`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...like, object: `${site.baseUrl}/blog/beta-post` }),
      });
      expect(tampered.status).toBe(401);
      const taken = await fetch(`${site.baseUrl}/@blog/inbox`, { method: 'POST', headers, body: JSON.stringify(like) });
      expect(taken.status).toBe(202);
      const followers = await json('/@blog/followers');
      expect(followers.totalItems).toBe(0);
    });

    it('keeps a post dated ahead out of the outbox, and answers its URL with 404, before its time', async () => {
      expect(Date.now()).toBeLessThan(dueAt - 3_000);
      const items = await outboxItems();
      expect(items.length).toBeGreaterThan(0);
      expect(items.every((item) => item.type === 'Create')).toBe(true);
      expect(items.map((item) => item.object.url)).not.toContainEqual(expect.stringContaining('future-post'));
      expect((await get('/blog/future-post')).status).toBe(404);
      expect((await get('/blog/future-post', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"')).status).toBe(404);
      const live = await get('/blog/alpha-post');
      expect(live.status).toBe(200);
      expect(await live.json()).toMatchObject({ type: 'Article', url: `${site.baseUrl}/blog/alpha-post`, attributedTo: `${site.baseUrl}/@blog` });
    });

    it(
      'accepts a follow, forgets an unfollow, and delivers a post that goes live to its followers once, signed',
      async () => {
        const actor = await follower.lookup(`blog@${host}`);
        expect(actor.id?.href).toBe(`${site.baseUrl}/@blog`);
        const followId = await follower.follow(actor);
        const leaverFollowId = await leaver.follow(await leaver.lookup(`blog@${host}`));
        await until(
          () => follower.received.some((entry) => entry.type === 'Accept') && leaver.received.some((entry) => entry.type === 'Accept'),
          'both follows accepted',
        );
        expect(follower.received.find((entry) => entry.type === 'Accept')).toMatchObject({ actor: `${site.baseUrl}/@blog` });
        expect(followId).toContain(follower.url);
        expect((await json('/@blog/followers')).totalItems).toBe(2);
        // The members are not public.
        const followers = await json('/@blog/followers');
        const firstPage = followers.first ? await json(new URL(followers.first as string).pathname + new URL(followers.first as string).search) : followers;
        expect(JSON.stringify([followers, firstPage])).not.toContain(follower.url);

        await leaver.unfollow(actor, leaverFollowId);
        await until(async () => (await json('/@blog/followers')).totalItems === 1, 'the unfollow honoured');
        expect(Date.now()).toBeLessThan(dueAt);

        await until(() => creates(follower).length > 0, 'the post delivered', LEAD_MS + 15_000);
        // Time for a second copy to arrive, were one sent.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const [delivered, ...again] = creates(follower);
        expect(again).toEqual([]);
        expect(delivered!.actor).toBe(`${site.baseUrl}/@blog`);
        const create = delivered!.activity as Create;
        const article = await create.getObject();
        expect(article).toBeInstanceOf(Article);
        expect((article as Article).name?.toString()).toBe('Future post');
        expect((article as Article).url?.href).toBe(`${site.baseUrl}/blog/future-post`);
        // Delivered through the shared inbox, signed, and taken (Fedify verified the signature before recording it).
        const deliveries = follower.posts.filter((post) => post.path === '/inbox');
        expect(deliveries).toEqual([{ path: '/inbox', status: 202, signed: true }]);
        expect(creates(leaver)).toEqual([]);

        // Live now: in the outbox, and its URL answers its Article.
        expect((await outboxItems()).map((item) => item.object.url)).toContain(`${site.baseUrl}/blog/future-post`);
        expect(await json('/blog/future-post')).toMatchObject({ type: 'Article', name: 'Future post' });
      },
      LEAD_MS + 30_000,
    );

    it(
      'counts likes and reposts of a live post on its page at once, and shows a reply, sanitized, only once the author approves it',
      { timeout: 90_000 },
      async () => {
        const actor = await follower.lookup(`blog@${host}`);
        const post = `${site.baseUrl}/blog/beta-post`;
        // Nothing came back yet: the page shows nothing of the fediverse.
        expect(await reactionsOn('beta-post')).toBe('data-fediverse="reactions">');

        // Likes of what is not ours (the same path on another server, a draft) count nowhere; the like of the post counts once.
        await leaver.like(await leaver.lookup(`blog@${host}`), 'https://elsewhere.example/blog/beta-post');
        await leaver.like(await leaver.lookup(`blog@${host}`), `${site.baseUrl}/blog/draft-post`);
        const likeId = await follower.like(actor, post);
        await follower.like(actor, post);
        await until(async () => (await reactionsOn('beta-post')).includes('1 like · 0 reposts'), 'the like on the page', 5_000);
        await follower.announce(actor, post);
        await until(async () => (await reactionsOn('beta-post')).includes('1 like · 1 repost'), 'the repost on the page', 5_000);

        // A reply with a script and an event handler in it: kept, listed for the author, not on the page.
        const html = '<p>Thanks for <strong>this</strong>!<script>alert(1)</script> <a href="https://example.org/more" onclick="steal()">More</a></p>';
        const replyId = await follower.reply(actor, post, html);
        let listed = '';
        await until(async () => (listed = (await fediverseCommand('replies')).stdout).includes('Thanks for this!'), 'the reply listed as pending');
        expect(listed).toContain('/blog/beta-post');
        expect(listed).toContain(`${follower.url}/users/reader`);
        expect(listed).not.toContain('<script>');
        const id = /^([0-9a-f]{12}) {2}\/blog\/beta-post/m.exec(listed)?.[1];
        expect(id).toBeDefined();
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        expect(await reactionsOn('beta-post')).not.toContain('Thanks for');

        // An id that names no reply: a clear message, status 1.
        const unknown = await fediverseCommand('approve', '000000000000');
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).toContain('No reply has the id "000000000000"');

        const approved = await fediverseCommand('approve', id!);
        expect(approved.code).toBe(0);
        await until(async () => (await reactionsOn('beta-post')).includes('Thanks for <strong>this</strong>!'), 'the approved reply on the page', 5_000);
        const shown = await reactionsOn('beta-post');
        expect(shown).not.toMatch(/<script|onclick|alert\(1\)/);
        expect(shown).toContain('<a href="https://example.org/more">More</a>');
        expect(shown).toContain(`<a href="${follower.url}/users/reader" rel="nofollow ugc noopener">A reader</a>`);
        expect(shown).toContain(`href="${follower.url}/@reader/${replyId.split('/').pop()}"`);
        expect((await fediverseCommand('replies')).stdout).toContain('No reply waits for approval.');

        // Its sender deletes it: gone from the page. A second reply, approved then rejected: gone too.
        await follower.deleteReply(actor, replyId);
        await until(async () => !(await reactionsOn('beta-post')).includes('Thanks for'), 'the deleted reply off the page', 5_000);
        await follower.reply(actor, post, '<p>Second thoughts</p>');
        let second: string | undefined;
        await until(async () => Boolean((second = /^([0-9a-f]{12}) /m.exec((await fediverseCommand('replies')).stdout)?.[1])), 'the second reply listed');
        expect((await fediverseCommand('approve', second!)).code).toBe(0);
        await until(async () => (await reactionsOn('beta-post')).includes('Second thoughts'), 'the second reply on the page', 5_000);
        expect((await fediverseCommand('reject', second!)).code).toBe(0);
        await until(async () => !(await reactionsOn('beta-post')).includes('Second thoughts'), 'the rejected reply off the page', 5_000);

        // The like taken back; the repost stays. The draft's like never counted anywhere.
        await follower.undoLike(actor, likeId, post);
        await until(async () => (await reactionsOn('beta-post')).includes('0 likes · 1 repost'), 'the like taken back', 5_000);
        expect((await get('/blog/draft-post', 'text/html')).status).toBe(404);
      },
    );

    it("refuses a blocked server's signed post with 403 problem details, without fetching its key", async () => {
      const like = {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${blockedPeer.url}/users/reader#like`,
        type: 'Like',
        actor: `${blockedPeer.url}/users/reader`,
        object: `${site.baseUrl}/blog/alpha-post`,
      };
      for (const inbox of ['/@blog/inbox', '/inbox']) {
        const headers = await blockedPeer.signedPost(`${site.baseUrl}${inbox}`, like);
        const refused = await fetch(`${site.baseUrl}${inbox}`, { method: 'POST', headers, body: JSON.stringify(like) });
        expect(refused.status).toBe(403);
        expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        expect(refused.headers.get('cache-control')).toBe('no-store');
        expect(((await refused.json()) as { title: string }).title).toBe('Server blocked');
      }
      expect(blockedPeer.gets).toEqual([]);
    });

    it('caches ActivityStreams answers as every read, varying on Accept as the page of the same URL does', async () => {
      for (const pathname of ['/@blog', '/blog/alpha-post']) {
        const activity = await get(pathname);
        const page = await get(pathname, BROWSER);
        expect(activity.headers.get('content-type'), pathname).toMatch(/^application\/activity\+json/);
        expect(page.headers.get('content-type'), pathname).toMatch(/^text\/html/);
        expect(activity.headers.get('cache-control'), pathname).toBe(page.headers.get('cache-control'));
        expect(activity.headers.get('cache-control'), pathname).toMatch(/^public, max-age=30, s-maxage=30/);
        expect(activity.headers.get('vary'), pathname).toBe(PAGE_VARY);
        expect(page.headers.get('vary'), pathname).toBe(PAGE_VARY);
      }
      for (const pathname of ['/@blog/outbox', '/@blog/followers', '/.well-known/nodeinfo']) {
        const answer = await get(pathname);
        expect(answer.headers.get('cache-control'), pathname).toMatch(/^public, max-age=30/);
        expect(answer.headers.get('vary'), pathname).toBe('Accept');
      }
    });

    it("links the author's profiles with rel=me on every page, escaped", async () => {
      for (const pathname of ['/', '/blog/alpha-post', '/blog']) {
        const html = await (await get(pathname, BROWSER)).text();
        expect(html, pathname).toContain(`<link rel="me" href="${PROFILE_HREF}"/>`);
        expect(html, pathname).toContain('<link rel="me" href="https://social.example/@testauthor"/>');
        expect(html, pathname).not.toContain('q=<b>');
      }
    });

    it("names the site's account as fediverse:creator on a page made with FEDIVERSE_HANDLE set", async () => {
      // The contract build was made without it: the home page shows it once it is made anew (a post went live, above).
      await until(async () => (await (await get('/', BROWSER)).text()).includes('name="fediverse:creator"'), 'the home page made anew');
      const html = await (await get('/', BROWSER)).text();
      expect(html).toContain(`<meta name="fediverse:creator" content="@blog@${host}"/>`);
    });

    it("answers a burst of inbox posts past one address's budget with 429, Retry-After and problem details", async () => {
      const like = JSON.stringify({
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${follower.url}/users/reader#burst`,
        type: 'Like',
        actor: `${follower.url}/users/reader`,
        object: `${site.baseUrl}/blog/alpha-post`,
      });
      const statuses: number[] = [];
      let refused: Response | undefined;
      for (let i = 0; i < 1300 && !refused; i++) {
        const answer = await fetch(`${site.baseUrl}/inbox`, { method: 'POST', headers: { 'Content-Type': AS }, body: like });
        statuses.push(answer.status);
        if (answer.status === 429) refused = answer;
        else await answer.arrayBuffer();
      }
      // Every post from this address this minute counted (the peers' and the tests' above too); the window slides
      // while the burst runs, so a few more than 1200 may pass in all, never 1300.
      expect(refused).toBeDefined();
      // Everything before it was the 401 of an unsigned post.
      expect(new Set(statuses.slice(0, -1))).toEqual(new Set([401]));
      expect((await fetch(`${site.baseUrl}/inbox`, { method: 'POST', headers: { 'Content-Type': AS }, body: like })).status).toBe(429);
      expect(Number(refused!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused!.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(refused!.headers.get('ratelimit-policy')).toBe('"fediverseInbox";q=1200;w=60');
    });
  });
}
