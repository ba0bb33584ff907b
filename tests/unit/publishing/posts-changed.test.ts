import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PostsChangedHost } from '../../../lib/publishing/posts-changed';

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
});
