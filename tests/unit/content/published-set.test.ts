import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The module keeps what it read and whether it wrote, per process: each test loads it afresh.
let dist: string;

beforeEach(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-published-set-'));
  vi.resetModules();
  vi.stubEnv('NEXT_DIST_DIR', dist);
});

afterEach(() => {
  vi.unstubAllEnvs();
  fs.rmSync(dist, { recursive: true, force: true });
});

/** The build's list as a fresh process's runtime makes it from these settings (lib/runtime/site.ts keeps what it made). */
const load = async () => (await import('../../../lib/runtime/site')).buildRecord();
const file = () => path.join(dist, 'lectern', 'published.json');

describe('recordPublishedSet', () => {
  it('a build writes its posts, their dates, its moment and how many it generated, once per process', async () => {
    vi.stubEnv('NEXT_PHASE', 'phase-production-build');
    const { recordPublishedSet } = await load();
    const written = { slugs: ['newest', 'older', 'oldest'], dates: [30, 20, 10], builtAt: 25, prerendered: 2, postTags: [['testing'], [], []], apps: [] };
    const list = vi.fn(() => written);
    recordPublishedSet(list);
    recordPublishedSet(list);
    expect(list).toHaveBeenCalledTimes(1);
    expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toEqual({
      slugs: ['newest', 'older', 'oldest'],
      dates: [30, 20, 10],
      builtAt: 25,
      prerendered: 2,
      postTags: [['testing'], [], []],
      apps: [],
    });
    expect(fs.readdirSync(path.dirname(file()))).toEqual(['published.json']);
  });

  it('writes nothing outside a build', async () => {
    const { recordPublishedSet } = await load();
    recordPublishedSet(() => ({ slugs: ['a'], dates: [1], builtAt: 2, prerendered: 1, postTags: [[]], apps: [] }));
    expect(fs.existsSync(file())).toBe(false);
  });
});

describe('builtSlugs, liveView and builtList', () => {
  const list = { slugs: ['scheduled', 'newest', 'older'], dates: [3000, 2000, 1000], builtAt: 2500, prerendered: 1, postTags: [[], [], []], apps: [] };

  it("a started site reads the build's list", async () => {
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.writeFileSync(file(), JSON.stringify(list));
    const { builtList, builtSlugs } = await load();
    expect(builtList()).toEqual(list);
    expect([...(builtSlugs() ?? [])]).toEqual(['scheduled', 'newest', 'older']);
    expect(builtSlugs()?.has('written-after-the-build')).toBe(false);
  });

  it('a post is due from its date on, not a millisecond before, and the set stays one object until one comes due', async () => {
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.writeFileSync(file(), JSON.stringify(list));
    const { liveView } = await load();
    expect([...(liveView(999)?.slugs ?? [])]).toEqual([]);
    expect([...(liveView(2999)?.slugs ?? [])]).toEqual(['newest', 'older']);
    expect(liveView(2500)).toBe(liveView(2999));
    expect([...(liveView(3000)?.slugs ?? [])]).toEqual(['scheduled', 'newest', 'older']);
    expect(liveView(3000)).not.toBe(liveView(2999));
  });

  it('counts the pages and tags of the live posts only: a tag or page only a post dated ahead fills exists from its time on', async () => {
    vi.stubEnv('POSTS_PER_PAGE', '1');
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.writeFileSync(file(), JSON.stringify({ ...list, postTags: [['secret', 'testing'], ['testing'], ['testing', 'http']], apps: [] }));
    const { liveView } = await load();
    const before = liveView(2999)!;
    expect(before.blogPages).toBe(2);
    expect([...before.tagPages]).toEqual([
      ['testing', 2],
      ['http', 1],
    ]);
    expect(liveView(2000)).toBe(before);
    const after = liveView(3000)!;
    expect(after.blogPages).toBe(3);
    expect(Object.fromEntries(after.tagPages)).toEqual({ secret: 1, testing: 3, http: 1 });
    expect([...after.slugs]).toEqual(['scheduled', 'newest', 'older']);
  });

  it('is undefined where no build wrote a list, during a build, and in development', async () => {
    expect((await load()).builtSlugs()).toBeUndefined();
    vi.resetModules();
    expect((await load()).liveView(Date.now())).toBeUndefined();
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.writeFileSync(file(), JSON.stringify({ slugs: ['a'], dates: [1], builtAt: 2, prerendered: 1, postTags: [[]], apps: [] }));
    vi.resetModules();
    vi.stubEnv('NEXT_PHASE', 'phase-production-build');
    expect((await load()).builtSlugs()).toBeUndefined();
    vi.resetModules();
    vi.stubEnv('NEXT_PHASE', '');
    vi.stubEnv('NODE_ENV', 'development');
    expect((await load()).builtSlugs()).toBeUndefined();
  });
});
