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

const load = () => import('../../../lib/content/published-set');
const file = () => path.join(dist, 'lectern', 'published.json');

describe('recordPublishedSet', () => {
  it('a build writes the published slugs and how many it generated, once per process', async () => {
    vi.stubEnv('NEXT_PHASE', 'phase-production-build');
    const { recordPublishedSet } = await load();
    const list = vi.fn(() => ({ slugs: ['newest', 'older', 'oldest'], prerendered: 2, blogPages: 1, tags: { testing: 1 }, apps: [] }));
    recordPublishedSet(list);
    recordPublishedSet(list);
    expect(list).toHaveBeenCalledTimes(1);
    expect(JSON.parse(fs.readFileSync(file(), 'utf8'))).toEqual({
      slugs: ['newest', 'older', 'oldest'],
      prerendered: 2,
      blogPages: 1,
      tags: { testing: 1 },
      apps: [],
    });
    expect(fs.readdirSync(path.dirname(file()))).toEqual(['published.json']);
  });

  it('writes nothing outside a build', async () => {
    const { recordPublishedSet } = await load();
    recordPublishedSet(() => ({ slugs: ['a'], prerendered: 1, blogPages: 1, tags: {}, apps: [] }));
    expect(fs.existsSync(file())).toBe(false);
  });
});

describe('publishedAtBuild and builtList', () => {
  it("a started site reads the build's list", async () => {
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.writeFileSync(file(), JSON.stringify({ slugs: ['newest', 'older'], prerendered: 1 }));
    const { builtList, publishedAtBuild } = await load();
    expect(builtList()).toEqual({ slugs: ['newest', 'older'], prerendered: 1 });
    expect([...(publishedAtBuild() ?? [])]).toEqual(['newest', 'older']);
    expect(publishedAtBuild()?.has('written-after-the-build')).toBe(false);
  });

  it('is undefined where no build wrote a list, during a build, and in development', async () => {
    expect((await load()).publishedAtBuild()).toBeUndefined();
    fs.mkdirSync(path.dirname(file()), { recursive: true });
    fs.writeFileSync(file(), JSON.stringify({ slugs: ['a'], prerendered: 1, blogPages: 1, tags: {}, apps: [] }));
    vi.resetModules();
    vi.stubEnv('NEXT_PHASE', 'phase-production-build');
    expect((await load()).publishedAtBuild()).toBeUndefined();
    vi.resetModules();
    vi.stubEnv('NEXT_PHASE', '');
    vi.stubEnv('NODE_ENV', 'development');
    expect((await load()).publishedAtBuild()).toBeUndefined();
  });
});
