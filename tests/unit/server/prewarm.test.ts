import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

let dist: string;

beforeEach(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-prewarm-'));
  vi.resetModules();
  vi.stubEnv('NEXT_DIST_DIR', dist);
});

afterEach(() => {
  vi.unstubAllEnvs();
  fs.rmSync(dist, { recursive: true, force: true });
});

const load = () => import('../../../lib/server/prewarm');

/** Next's request handler, stood in for: answers 200, or 404 for the paths given, and records what it was asked. */
function fakeNext(missing: string[] = []) {
  const asked: string[] = [];
  const render = (req: IncomingMessage, res: ServerResponse) => {
    asked.push(req.url ?? '');
    res.writeHead(missing.includes(req.url ?? '') ? 404 : 200, { 'Content-Type': 'text/plain' });
    res.end('made');
  };
  return { asked, render };
}

describe('postsToPrewarm', () => {
  it('lists the posts past the ones the build generated, newest first, and none dated after the build', async () => {
    fs.mkdirSync(path.join(dist, 'lectern'));
    const list = { slugs: ['scheduled', 'd', 'c', 'b', 'a'], dates: [500, 400, 300, 200, 100], builtAt: 450, prerendered: 2 };
    fs.writeFileSync(path.join(dist, 'lectern', 'published.json'), JSON.stringify(list));
    expect((await load()).postsToPrewarm()).toEqual(['b', 'a']);
  });

  it('lists nothing without a build', async () => {
    expect((await load()).postsToPrewarm()).toEqual([]);
  });
});

describe('prewarm', () => {
  it('asks for every URL of each post, one at a time, and says when it is done', async () => {
    const { prewarm } = await load();
    const { asked, render } = fakeNext();
    const lines: string[] = [];
    await prewarm(render, ['older', 'oldest'], (line) => lines.push(line));
    expect(asked).toEqual([
      '/blog/older',
      '/blog/older/index.md',
      '/api/blog/older/markdown',
      '/blog/older/opengraph-image',
      '/blog/oldest',
      '/blog/oldest/index.md',
      '/api/blog/oldest/markdown',
      '/blog/oldest/opengraph-image',
    ]);
    expect(lines[0]).toBe('generating 2 older posts in the background (PRERENDER_POSTS)');
    expect(lines[1]).toMatch(/^generated 2 older posts in \d+\.\d s$/);
  });

  it('stops at the first answer that is not a 200 and says which', async () => {
    const { prewarm } = await load();
    const { asked, render } = fakeNext(['/blog/older/index.md']);
    const lines: string[] = [];
    await prewarm(render, ['older', 'oldest'], (line) => lines.push(line));
    expect(asked).toEqual(['/blog/older', '/blog/older/index.md']);
    expect(lines.at(-1)).toBe('stopped generating older posts: /blog/older/index.md answered 404');
  });

  it('does nothing for no posts', async () => {
    const { prewarm } = await load();
    const { asked, render } = fakeNext();
    const log = vi.fn();
    await prewarm(render, [], log);
    expect(asked).toEqual([]);
    expect(log).not.toHaveBeenCalled();
  });
});
