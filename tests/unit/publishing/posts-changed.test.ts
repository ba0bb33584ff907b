import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PostsChangedHost } from '../../../lib/publishing/posts-changed';
import { FIXTURE_CONTENT } from '../../support/site';

let dist: string;

beforeEach(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-posts-changed-'));
  vi.resetModules();
  vi.stubEnv('NEXT_DIST_DIR', dist);
  fs.mkdirSync(path.join(dist, 'lectern'));
  // Two posts published at the build, one dated after it.
  const list = { slugs: ['ahead', 'b', 'a'], dates: [900_000, 200, 100], builtAt: 450, prerendered: 2, postTags: [['x'], ['x'], ['x']], apps: [] };
  fs.writeFileSync(path.join(dist, 'lectern', 'published.json'), JSON.stringify(list));
});

afterEach(() => {
  vi.unstubAllEnvs();
  fs.rmSync(dist, { recursive: true, force: true });
});

/** A host that records each reaction, in order; its claims fail when `storeDown`. */
function recordingHost(options: { storeDown?: boolean } = {}) {
  const events: string[] = [];
  const values = new Map<string, string>();
  const host: PostsChangedHost = {
    revalidate: async () => void events.push('revalidate'),
    refreshSearch: () => void events.push('search index'),
    remakeReads: async (ahead) => void events.push(`remake (${ahead} ahead)`),
    claims: () => {
      if (options.storeDown) throw new Error('connection refused');
      events.push('claims');
      return {
        get: async (key) => values.get(key),
        set: async (key, value) => void values.set(key, value),
        claim: async (key, value) => !values.has(key) && Boolean(values.set(key, value)),
      };
    },
    indexNow: { indexNow: { endpoint: 'http://127.0.0.1:9/indexnow' }, site: { url: 'http://localhost:3000' } } as PostsChangedHost['indexNow'],
    newsletter: async () => void events.push('newsletter'),
  };
  return { events, host };
}

const load = () => import('../../../lib/publishing/posts-changed');

describe('postsChanged', () => {
  it('runs every reaction in its order once the live set differs from the build: revalidation, search index, outputs made anew, claims, newsletter', async () => {
    const { postsChanged } = await load();
    const { events, host } = recordingHost();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const published = await postsChanged(host, { now: 1_000_000 });
    warn.mockRestore();
    expect(events).toEqual(['revalidate', 'search index', 'remake (0 ahead)', 'claims', 'newsletter']);
    expect(published).toMatchObject({ revalidated: true, claimed: true });
  });

  it("leaves Next, the index and the read cache alone while the live set is the build's, and the newsletter still looks", async () => {
    const { postsChanged } = await load();
    const { events, host } = recordingHost();
    const published = await postsChanged(host, { now: 500 });
    expect(events).toEqual(['claims', 'newsletter']);
    expect(published).toMatchObject({ revalidated: false, claimed: true });
  });

  it('makes the post live everywhere with the store down, says it is not claimed (so the scheduler tries again), and does not revalidate twice for it', async () => {
    const { postsChanged } = await load();
    const down = recordingHost({ storeDown: true });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const first = await postsChanged(down.host, { now: 1_000_000 });
    expect(down.events).toEqual(['revalidate', 'search index', 'remake (0 ahead)', 'newsletter']);
    expect(first).toMatchObject({ revalidated: true, claimed: false, wentLive: [] });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('the store is unavailable'));
    warn.mockRestore();
    // The store is back: the retry claims, and Next's outputs (already made with the post) are not marked stale again.
    const back = recordingHost();
    const again = await postsChanged(back.host, { now: 1_000_500 });
    expect(back.events).toEqual(['claims', 'newsletter']);
    expect(again).toMatchObject({ revalidated: false, claimed: true });
  });

  describe('the fediverse', () => {
    // The fixture's future-post: midnight in America/New_York.
    const DUE = Date.parse('2999-01-01T00:00:00-05:00');

    /** The fixture content, built an hour before future-post's time. */
    function fixtureSite(): void {
      vi.stubEnv('CONTENT_DIR', FIXTURE_CONTENT);
      const slugs = ['future-post', 'escaping-post', 'beta-post', 'gamma-post', 'alpha-post'];
      const dates = [
        DUE,
        Date.parse('2025-04-01T07:30:00Z'),
        Date.parse('2025-03-05T05:00:00Z'),
        Date.parse('2025-03-05T05:00:00Z'),
        Date.parse('2025-01-10T05:00:00Z'),
      ];
      const list = { slugs, dates, builtAt: DUE - 3_600_000, prerendered: 2, postTags: slugs.map(() => []), apps: [] };
      fs.writeFileSync(path.join(dist, 'lectern', 'published.json'), JSON.stringify(list));
    }

    it('queues a Create of each post that went live once, by slug, after the newsletter; never the posts the first run finds live', async () => {
      fixtureSite();
      const { postsChanged } = await load();
      const { events, host } = recordingHost();
      const queued: string[][] = [];
      host.fediverse = async (slugs) => {
        events.push('fediverse');
        queued.push([...slugs]);
      };
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      await postsChanged(host, { now: DUE - 60_000 });
      expect(queued).toEqual([]);
      events.length = 0;
      await postsChanged(host, { now: DUE + 1_000 });
      expect(queued).toEqual([['future-post']]);
      expect(events.slice(-2)).toEqual(['newsletter', 'fediverse']);
      // Claimed already: a later run (or another instance) queues nothing.
      await postsChanged(host, { now: DUE + 2_000 });
      expect(queued).toEqual([['future-post']]);
      warn.mockRestore();
    });

    it('logs a post that could not be queued and says the run claimed it (its followers find it in the outbox)', async () => {
      fixtureSite();
      const { postsChanged } = await load();
      const { host } = recordingHost();
      host.fediverse = async () => {
        throw new Error('database is locked');
      };
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      await postsChanged(host, { now: DUE - 60_000 });
      const published = await postsChanged(host, { now: DUE + 1_000 });
      expect(published).toMatchObject({ claimed: true, wentLive: [expect.stringContaining('/blog/future-post')] });
      expect(warn).toHaveBeenCalledWith(expect.stringMatching(/^fediverse: .*future-post could not be queued for followers \(database is locked\)/));
      warn.mockRestore();
    });
  });
});
