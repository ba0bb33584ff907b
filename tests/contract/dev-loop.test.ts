import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type RawResponse } from '../support/client';
import { FIXTURE_CONTENT, freePort, ROOT } from '../support/site';
import { SERVER_ARGS } from '@/lib/server/node-flags';

/**
 * The author's loop: `npm run dev` (lectern's server in development mode) on a
 * copy of the fixture content, edited while it runs. Every change must show on
 * the very next request, in every output, without a restart. Next compiles each
 * route on its first request, slowly, so the routes are visited once first.
 */
const DIST_DIR = '.next-dev-test';

let contentDir: string;
let dataDir: string;
let server: ChildProcess;
let base: string;
let output = '';

const post = (slug: string) => path.join(contentDir, 'posts', `${slug}.md`);
const get = (pathname: string, headers: Record<string, string> = {}) => request(base, pathname, { headers: { Accept: 'text/html', ...headers } });
const slugsOf = async () => ((await get('/api/blog')).json() as { posts: { slug: string; title: string }[] }).posts;

/** Asks until the route answers something other than a compile-time failure (first compile only). */
async function warm(pathname: string): Promise<RawResponse> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    const response = await get(pathname).catch(() => undefined);
    if (response && response.status < 500) return response;
    if (Date.now() > deadline) throw new Error(`${pathname} did not compile\n${output.slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

beforeAll(async () => {
  contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-dev-content-'));
  fs.cpSync(FIXTURE_CONTENT, contentDir, { recursive: true });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-dev-data-'));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // What `npm run dev` runs; NODE_ENV is left to Next, as there.
  const env: Record<string, string | undefined> = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV')),
    CONTENT_DIR: contentDir,
    DATA_DIR: dataDir,
    NEXT_DIST_DIR: DIST_DIR,
    SITE_URL: base,
    PORT: String(port),
    HOSTNAME: '127.0.0.1',
    NEXT_TELEMETRY_DISABLED: '1',
  };
  server = spawn(process.execPath, [...SERVER_ARGS, '--dev'], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  server.stdout?.on('data', (chunk) => (output += chunk));
  server.stderr?.on('data', (chunk) => (output += chunk));
  for (const pathname of ['/api/blog', '/blog/alpha-post', '/blog/alpha-post.md', '/api/blog/alpha-post/markdown', '/api/rss', '/tags/http', '/blog']) {
    expect((await warm(pathname)).status).toBe(200);
  }
}, 900_000);

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    // The whole process group: Next's development server may have workers of its own.
    process.kill(-server.pid!, 'SIGTERM');
    const timer = setTimeout(() => process.kill(-server.pid!, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  fs.rmSync(contentDir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run dev with live content', { timeout: 180_000 }, () => {
  it('shows a draft and a future post, each marked as not published, on its page and in the lists', async () => {
    const draft = await get('/blog/draft-post');
    expect(draft.status).toBe(200);
    expect(draft.body).toContain('<h1>Secret draft post</h1>');
    expect(draft.body).toMatch(/class="unpublished-banner" role="note"><strong>Not published<\/strong>: this post is <!-- -->a draft/);
    const future = await get('/blog/future-post');
    expect(future.body).toMatch(/class="unpublished-banner"[^>]*><strong>Not published<\/strong>: this post is <!-- -->dated/);
    const list = await get('/blog');
    expect(list.body).toMatch(
      /Secret draft post<\/a><\/h2><p class="meta"><time[^>]*>[^<]*<\/time> · <strong class="unpublished-label">Not published: <!-- -->a draft<\/strong>/,
    );
    // A published post carries no mark.
    expect((await get('/blog/alpha-post')).body).not.toContain('unpublished-banner');
  });

  it('shows an edited title on the next request in the page, the markdown, /api/blog, RSS and the tag page', async () => {
    fs.writeFileSync(post('alpha-post'), fs.readFileSync(post('alpha-post'), 'utf8').replace('title: Alpha post', 'title: Alpha retitled live'));
    expect((await get('/blog/alpha-post')).body).toContain('<h1>Alpha retitled live</h1>');
    expect((await get('/blog/alpha-post.md')).body).toMatch(/^---\ntitle: Alpha retitled live\n/);
    expect((await get('/blog/alpha-post', { Accept: 'text/markdown' })).body).toMatch(/^---\ntitle: Alpha retitled live\n/);
    expect((await get('/api/blog/alpha-post/markdown')).body).toMatch(/^---\ntitle: Alpha retitled live\n/);
    expect((await slugsOf()).find((entry) => entry.slug === 'alpha-post')?.title).toBe('Alpha retitled live');
    expect((await get('/api/rss')).body).toMatch(/<title>(<!\[CDATA\[)?Alpha retitled live/);
    expect((await get('/tags/http')).body).toContain('Alpha retitled live');
  });

  it('serves a new post and its new tag on the next request, everywhere', async () => {
    fs.writeFileSync(
      post('delta-post'),
      '---\ntitle: Delta arrives\ndescription: Written while the server runs.\ndate: 2025-04-01\ntags: [fresh-tag]\n---\nDelta body.\n',
    );
    const page = await get('/blog/delta-post');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h1>Delta arrives</h1>');
    expect((await get('/blog/delta-post.md')).body).toMatch(/^---\ntitle: Delta arrives\n/);
    expect((await get('/api/blog/delta-post/markdown')).status).toBe(200);
    expect((await slugsOf()).find((entry) => entry.slug === 'delta-post')).toMatchObject({ title: 'Delta arrives', date: '2025-04-01' });
    expect((await get('/api/rss')).body).toMatch(/<title>(<!\[CDATA\[)?Delta arrives/);
    const tag = await get('/tags/fresh-tag');
    expect(tag.status).toBe(200);
    expect(tag.body).toContain('Delta arrives');
  });

  it('follows a renamed post to its new slug and forgets the old one', async () => {
    fs.renameSync(post('gamma-post'), post('gamma-renamed'));
    expect((await get('/blog/gamma-post')).status).toBe(404);
    expect((await get('/blog/gamma-post.md')).status).toBe(404);
    const renamed = await get('/blog/gamma-renamed');
    expect(renamed.status).toBe(200);
    expect(renamed.body).toContain('<h1>Gamma post</h1>');
    const slugs = (await slugsOf()).map((entry) => entry.slug);
    expect(slugs).toContain('gamma-renamed');
    expect(slugs).not.toContain('gamma-post');
    expect((await get('/api/rss')).body).toContain('/blog/gamma-renamed</link>');
  });

  it('drops a removed post from its page, the markdown, /api/blog, RSS and the tag page', async () => {
    expect((await get('/tags/testing')).body).toContain('Beta post');
    fs.rmSync(post('beta-post'));
    expect((await get('/blog/beta-post')).status).toBe(404);
    expect((await get('/api/blog/beta-post/markdown')).status).toBe(404);
    expect((await slugsOf()).map((entry) => entry.slug)).not.toContain('beta-post');
    expect((await get('/api/rss')).body).not.toContain('Beta post');
    expect((await get('/tags/testing')).body).not.toContain('Beta post');
  });

  it("shows the build's message for broken frontmatter on the page, and the page again once it is fixed", async () => {
    const good = fs.readFileSync(post('alpha-post'), 'utf8');
    fs.writeFileSync(post('alpha-post'), good.replace('date: 2025-01-10', 'drfat: true\ndate: 2025-01-10'));
    const broken = await get('/blog/alpha-post');
    expect(broken.status).toBe(500);
    expect(broken.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(broken.body).toContain('<p>Content has 1 problem:</p>');
    expect(broken.body).toMatch(/<li>[^<]*posts\/alpha-post\.md › drfat: is not a known key<\/li>/);
    const api = await request(base, '/api/blog');
    expect(api.status).toBe(500);
    expect(api.body).toMatch(/^Content has 1 problem:\n {2}\S*posts\/alpha-post\.md › drfat: is not a known key\n$/);

    fs.writeFileSync(post('alpha-post'), good);
    const fixed = await get('/blog/alpha-post');
    expect(fixed.status).toBe(200);
    expect(fixed.body).toContain('<h1>Alpha retitled live</h1>');
  });
});
