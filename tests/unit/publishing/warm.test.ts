import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { shared } from '../../../lib/process-shared';
import { SCHEDULER_TOKEN } from '../../../lib/publishing/scheduler';

let dist: string;
const token = shared(SCHEDULER_TOKEN, () => 'the-scheduler-token');

beforeEach(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-warm-'));
  vi.resetModules();
  vi.stubEnv('NEXT_DIST_DIR', dist);
  fs.mkdirSync(path.join(dist, 'lectern'));
  // One post a page: the three posts (all live by the real clock) fill three pages of /blog and of "large".
  vi.stubEnv('POSTS_PER_PAGE', '1');
  const list = {
    slugs: ['ahead', 'b', 'a'],
    dates: [900_000, 200, 100],
    builtAt: 450,
    prerendered: 2,
    postTags: [['large'], ['large', 'small'], ['large']],
    apps: [],
  };
  fs.writeFileSync(path.join(dist, 'lectern', 'published.json'), JSON.stringify(list));
});

afterEach(() => {
  vi.unstubAllEnvs();
  fs.rmSync(dist, { recursive: true, force: true });
});

const load = () => import('../../../lib/publishing/on-server');

/** Next's handler, stood in for: records each request (and its Authorization), answers 200 or the status given for a path. */
function fakeNext(statuses: Record<string, number> = {}, onRequest: () => void = () => undefined) {
  const asked: { url: string; authorization?: string }[] = [];
  const render = (req: IncomingMessage, res: ServerResponse) => {
    asked.push({ url: req.url ?? '', authorization: req.headers.authorization });
    onRequest();
    res.writeHead(statuses[req.url ?? ''] ?? 200, { 'Content-Type': 'text/plain' });
    res.end('{}');
  };
  return { asked, render };
}

describe('warmLists', () => {
  it('marks every output stale with the scheduler token, then asks for one URL of every list and feed, the largest tag for the tag routes', async () => {
    const { warmLists } = await load();
    const { asked, render } = fakeNext();
    const lines: string[] = [];
    await warmLists(render, { nextPost: 900_000, clock: () => 0, log: (line) => lines.push(line) });
    expect(asked[0]).toEqual({ url: '/api/publish', authorization: `Bearer ${token}` });
    const urls = asked.slice(1).map((request) => request.url);
    expect(urls).toEqual(expect.arrayContaining(['/', '/blog', '/blog/page/2', '/api/rss', '/atom.xml', '/feed.json', '/sitemap.xml', '/llms.txt']));
    expect(urls).toEqual(expect.arrayContaining(['/tags/large', '/tags/large.md', '/tags/large/rss.xml']));
    expect(urls.some((url) => url.includes('small'))).toBe(false);
    // Not the one file of every post's text, nor what answers only a query.
    expect(urls).not.toContain('/llms-full.txt');
    expect(urls).not.toContain('/api/search');
    // Lists are public: only the call that marks them stale carries the token.
    expect(asked.slice(1).every((request) => request.authorization === undefined)).toBe(true);
    expect(lines).toEqual([expect.stringMatching(/^made the lists and feeds ready for the next scheduled post in \d+\.\d s$/)]);
  });

  it('does nothing when the next post is due within the margin', async () => {
    const { warmLists, WARM_MARGIN_MS } = await load();
    const { asked, render } = fakeNext();
    const log = vi.fn();
    await warmLists(render, { nextPost: 900_000, clock: () => 900_000 - WARM_MARGIN_MS, log });
    expect(asked).toEqual([]);
    expect(log).not.toHaveBeenCalled();
  });

  it('stops asking once the clock reaches the margin before the post, and says so', async () => {
    const { warmLists, WARM_MARGIN_MS } = await load();
    let now = 0;
    // Each request takes the clock 20 s on: the third would be asked inside the margin.
    const { asked, render } = fakeNext({}, () => (now += 20_000));
    const lines: string[] = [];
    await warmLists(render, { nextPost: 20_000 + WARM_MARGIN_MS + 1, clock: () => now, log: (line) => lines.push(line) });
    expect(asked.map((request) => request.url)).toEqual(['/api/publish', '/']);
    expect(lines).toEqual(['stopped making the lists and feeds ready for the next scheduled post: the next post is due soon']);
  });

  it('stops at an answer that is not a 200 and says which', async () => {
    const { warmLists } = await load();
    const { asked, render } = fakeNext({ '/blog': 500 });
    const lines: string[] = [];
    await warmLists(render, { nextPost: 900_000, clock: () => 0, log: (line) => lines.push(line) });
    expect(asked.at(-1)?.url).toBe('/blog');
    expect(lines).toEqual(['stopped making the lists and feeds ready for the next scheduled post: /blog answered 500']);
  });
});

/** The store's settings, in memory: what claims a post that went live. */
function memoryClaims() {
  const values = new Map<string, string>();
  return {
    get: async (key: string) => values.get(key),
    set: async (key: string, value: string) => void values.set(key, value),
    claim: async (key: string, value: string) => {
      if (values.has(key)) return false;
      values.set(key, value);
      return true;
    },
  };
}

describe('siteScheduler', () => {
  it('runs the reactions in their order when a post went live: Next revalidates, the search index starts anew, the read cache’s copies go stale, the outputs are made anew, then the newsletter looks', async () => {
    const { siteScheduler } = await load();
    const events: string[] = [];
    const render = (req: IncomingMessage, res: ServerResponse) => {
      events.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(req.url === '/api/publish' ? JSON.stringify({ revalidated: true }) : '{}');
    };
    const scheduler = siteScheduler(render, {
      refreshSearch: () => void events.push('search index'),
      remake: async (path) => {
        events.push(`made ${path}`);
        return 200;
      },
      readsChanged: () => void events.push('read cache stale'),
      claims: memoryClaims,
      indexNow: { indexNow: { endpoint: 'http://127.0.0.1:9/indexnow' }, site: { url: 'http://localhost:3000' } } as never,
      newsletter: async () => void events.push('newsletter'),
    });
    expect(events).toEqual([]);
    await scheduler?.start();
    scheduler?.stop();
    // Marked stale only once Next has revalidated: a copy made anew before would be Next's old one.
    expect(events.slice(0, 3)).toEqual(['/api/publish', 'search index', 'read cache stale']);
    const made = events.slice(3, -1).map((event) => event.replace(/^made /, ''));
    // Made by the read cache, in place of its copy: none goes to Next's handler on its own.
    expect(events.slice(3, -1).every((event) => event.startsWith('made '))).toBe(true);
    // "ahead" (dated after the build, live by the real clock) went live: its page and markdown first, before the
    // lists (a large site's lists can use up the time for making outputs ahead), and its card last of all.
    expect(made.slice(0, 3).toSorted()).toEqual(['/api/blog/ahead/markdown', '/blog/ahead', '/blog/ahead.md']);
    expect(made.at(-1)).toBe('/blog/ahead/opengraph-image');
    expect(made.indexOf('/blog/ahead')).toBeLessThan(made.indexOf('/blog'));
    expect(made).toEqual(
      expect.arrayContaining(['/', '/blog', '/blog/page/2', '/feed.json', '/sitemap.xml', '/tags/large', '/tags/large.md', '/tags/large/rss.xml']),
    );
    expect(new Set(made).size).toBe(made.length);
    expect(events.at(-1)).toBe('newsletter');
  });
});

describe('siteScheduler.readsAt', () => {
  /** The scheduler, started with the process clock set to `at` (epoch ms); what readsAt said as each URL was asked of Next. */
  async function goLiveAt(at: number) {
    const { siteScheduler } = await load();
    // Set once the modules are loaded (the settings are read on first use): loading takes a while.
    vi.stubEnv('LECTERN_CLOCK_OFFSET_MS', String(at - Date.now()));
    const seen = new Map<string, number>();
    const scheduled: { readsAt?: () => number } = {};
    const render = (req: IncomingMessage, res: ServerResponse) => {
      if (scheduled.readsAt && !seen.has(req.url ?? '')) seen.set(req.url ?? '', scheduled.readsAt());
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(req.url === '/api/publish' ? JSON.stringify({ revalidated: true }) : '{}');
    };
    const scheduler = siteScheduler(render, {
      refreshSearch: () => undefined,
      remake: async (path) => {
        if (scheduled.readsAt && !seen.has(path)) seen.set(path, scheduled.readsAt());
        return 200;
      },
      readsChanged: () => undefined,
      claims: memoryClaims,
      indexNow: { indexNow: { endpoint: 'http://127.0.0.1:9/indexnow' }, site: { url: 'http://localhost:3000' } } as never,
      newsletter: async () => undefined,
    });
    scheduled.readsAt = () => scheduler!.readsAt();
    await scheduler?.start();
    scheduler?.stop();
    return { seen, readsAt: scheduled.readsAt };
  }

  it('is the moment before a post’s time until its page and markdown are made anew, then the clock', async () => {
    // "ahead" is dated 900,000; the clock is a second past it.
    const { seen, readsAt } = await goLiveAt(901_000);
    expect(seen.get('/api/publish')).toBe(899_999);
    expect(seen.get('/blog/ahead')).toBe(899_999);
    expect(seen.get('/blog')).toBeGreaterThanOrEqual(901_000);
    expect(readsAt()).toBeGreaterThanOrEqual(901_000);
  });

  it('is the clock once HELD_AT_MOST_MS have passed since the post’s time, made anew or not', async () => {
    const { HELD_AT_MOST_MS } = await load();
    const { seen } = await goLiveAt(900_000 + HELD_AT_MOST_MS);
    expect(seen.get('/blog/ahead')).toBeGreaterThanOrEqual(900_000 + HELD_AT_MOST_MS);
  });
});

describe('siteScheduler and the render ahead', () => {
  /** The scheduler started a second before "ahead" (dated 900,000) is due, its render ahead taking `renderMs` (never ending when undefined). */
  async function goLive(renderMs: number | undefined) {
    const { siteScheduler } = await load();
    // Set once the modules are loaded (the settings are read on first use): loading takes a while.
    vi.stubEnv('LECTERN_CLOCK_OFFSET_MS', String(899_000 - Date.now()));
    const started = Date.now();
    const at: Record<string, number> = {};
    const render = (req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(req.url === '/api/publish' ? JSON.stringify({ revalidated: true }) : '{}');
    };
    const scheduler = siteScheduler(render, {
      refreshSearch: () => undefined,
      remake: async (path) => {
        at.remade ??= Date.now() - started;
        void path;
        return 200;
      },
      readsChanged: () => undefined,
      renderAhead: () =>
        new Promise<number>((resolve) => {
          at.renderStarted = Date.now() - started;
          if (renderMs !== undefined)
            setTimeout(() => {
              at.rendered = Date.now() - started;
              resolve(1);
            }, renderMs);
        }),
      claims: memoryClaims,
      indexNow: { indexNow: { endpoint: 'http://127.0.0.1:9/indexnow' }, site: { url: 'http://localhost:3000' } } as never,
      // The newsletter looks at start too; the look after the post went live comes after its outputs.
      newsletter: async () => void (at.remade !== undefined && (at.newsletter ??= Date.now() - started)),
    });
    await scheduler?.start();
    await vi.waitFor(() => expect(at.newsletter).toBeDefined(), { timeout: 10_000 });
    scheduler?.stop();
    return at;
  }

  it('makes the post’s outputs anew and starts its newsletter once its render ahead is done', async () => {
    const at = await goLive(2_000);
    expect(at.renderStarted).toBeLessThan(at.rendered!);
    expect(at.remade).toBeGreaterThanOrEqual(at.rendered!);
    expect(at.newsletter).toBeGreaterThanOrEqual(at.rendered!);
  });

  it('waits RENDER_WAIT_MS at most for a render ahead that does not end', async () => {
    const { RENDER_WAIT_MS } = await load();
    const at = await goLive(undefined);
    // Due a second after the start; made anew once the wait ran out, not before, and not long after.
    expect(at.remade).toBeGreaterThanOrEqual(1_000 + RENDER_WAIT_MS - 50);
    expect(at.remade).toBeLessThan(1_000 + RENDER_WAIT_MS + 5_000);
  });
});
