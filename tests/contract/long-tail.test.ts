import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { get } from '../support/http';
import { copyContractBuild, freePort, ROOT, startSite, type RunningSite } from '../support/site';

// The contract site is built with PRERENDER_POSTS=2 and PREWARM=0 (tests/contract/global-setup.ts):
// the build generates the two newest of its four published posts, the two older ones are generated
// on their first request.

const distDir = () => path.join(ROOT, inject('distDir'));
const publishedSlugs = async () => ((await (await get('/api/blog')).json()) as { posts: { slug: string }[] }).posts.map((post) => post.slug);
const postUrls = (slug: string) => [`/blog/${slug}`, `/blog/${slug}.md`, `/api/blog/${slug}/markdown`, `/blog/${slug}/opengraph-image`];

function prerenderedRoutes(dist: string): Record<string, unknown> {
  return (JSON.parse(fs.readFileSync(path.join(dist, 'prerender-manifest.json'), 'utf8')) as { routes: Record<string, unknown> }).routes;
}

/** Every file Next kept under its build folder for a generated page whose path names this slug. */
function keptFiles(dist: string, slug: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      if (file.includes(slug)) found.push(path.relative(dist, file));
    }
  };
  walk(path.join(dist, 'server'));
  return found;
}

/** lectern's server with the contract site's settings (global-setup.ts), on another content folder or build folder if given. */
async function serveContractBuild({
  contentDir = inject('contentDir'),
  distDir = inject('distDir'),
  prewarm = false,
}: {
  contentDir?: string;
  distDir?: string;
  prewarm?: boolean;
}) {
  return startSite({
    contentDir,
    distDir,
    siteUrl: inject('siteUrl'),
    port: await freePort(),
    extraEnv: { POSTS_PER_PAGE: '1', PRERENDER_POSTS: '2', PREWARM: prewarm ? '1' : '0' },
  });
}

const copyBuild = () => copyContractBuild(distDir(), 'long-tail');

describe('the newest PRERENDER_POSTS posts are generated at build, the others on their first request', () => {
  it('the build generated the two newest posts (page, markdown, card) and no older one', async () => {
    const slugs = await publishedSlugs();
    expect(slugs.length).toBe(4);
    const routes = prerenderedRoutes(distDir());
    for (const slug of slugs.slice(0, 2)) {
      for (const pathname of [`/blog/${slug}`, `/blog/${slug}/index.md`, `/blog/${slug}/opengraph-image`]) expect(routes[pathname], pathname).toBeDefined();
    }
    for (const slug of slugs.slice(2)) expect(Object.keys(routes).filter((pathname) => pathname.includes(slug))).toEqual([]);
  });

  it('an older post answers every URL of a post, the same on the next request', async () => {
    const slug = (await publishedSlugs())[3]!;
    for (const pathname of postUrls(slug)) {
      const first = await get(pathname);
      expect(first.status, pathname).toBe(200);
      const body = Buffer.from(await first.arrayBuffer());
      const again = await get(pathname);
      expect(again.status).toBe(200);
      expect(Buffer.from(await again.arrayBuffer()).equals(body), pathname).toBe(true);
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    }
    const page = await (await get(`/blog/${slug}`)).text();
    expect(page).toContain('<h1>');
    expect(page).toContain(`/blog/${slug}/opengraph-image`);
    expect((await get(`/blog/${slug}/opengraph-image`)).headers.get('content-type')).toBe('image/png');
  });

  it('the markdown URLs of a post serve the same bytes, generated or not', async () => {
    for (const slug of await publishedSlugs()) {
      const twin = Buffer.from(await (await get(`/blog/${slug}.md`)).arrayBuffer());
      const api = Buffer.from(await (await get(`/api/blog/${slug}/markdown`)).arrayBuffer());
      expect(api.equals(twin), slug).toBe(true);
      expect(twin.toString('utf8')).toBe(fs.readFileSync(path.join(inject('contentDir'), 'posts', `${slug}.md`), 'utf8'));
    }
  });

  it.each(['no-such-post', 'draft-post', 'future-post'])('%s: every post URL is a 404 and nothing is generated or kept for it', async (slug) => {
    for (const pathname of postUrls(slug)) {
      const response = await get(pathname);
      expect(response.status, pathname).toBe(404);
      await response.arrayBuffer();
    }
    expect((await get(`/api/blog/${slug}/markdown`)).headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect((await get(`/blog/${slug}.md`)).headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect((await get(`/blog/${slug}`)).headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(keptFiles(distDir(), slug)).toEqual([]);
  });
});

describe('a page generated on request is the page the build would have made', () => {
  let copy: string;
  let site: RunningSite;
  let slug: string;

  beforeAll(async () => {
    // The same build, with one post the build generated taken out of what it generated: that
    // post is then generated on request, by the same code, for a byte-by-byte comparison.
    slug = (await publishedSlugs())[0]!;
    copy = copyBuild();
    const manifestFile = path.join(copy, 'prerender-manifest.json');
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { routes: Record<string, unknown> };
    const removed = Object.keys(manifest.routes).filter((pathname) => pathname.startsWith(`/blog/${slug}`));
    expect(removed.length).toBe(3);
    for (const pathname of removed) delete manifest.routes[pathname];
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
    for (const file of keptFiles(copy, slug)) fs.rmSync(path.join(copy, file), { recursive: true, force: true });
    site = await serveContractBuild({ distDir: path.basename(copy) });
  }, 90_000);

  afterAll(async () => {
    await site?.stop();
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it('page, markdown and card are byte for byte the build-time ones', async () => {
    for (const pathname of [`/blog/${slug}`, `/blog/${slug}.md`, `/blog/${slug}/opengraph-image`]) {
      const built = await get(pathname);
      const generated = await fetch(`${site.baseUrl}${pathname}`);
      expect(generated.status, pathname).toBe(200);
      expect(generated.headers.get('content-type'), pathname).toBe(built.headers.get('content-type'));
      expect(Buffer.from(await generated.arrayBuffer()).equals(Buffer.from(await built.arrayBuffer())), pathname).toBe(true);
    }
    // Generated here on request, not found prebuilt.
    expect(keptFiles(copy, slug).some((file) => file.startsWith(path.join('server', 'route-cache')))).toBe(true);
  });
});

describe("the published set is the build's", () => {
  let content: string;
  let site: RunningSite;

  beforeAll(async () => {
    // The build's content folder with a post added after the build, dated in the past.
    content = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-after-build-'));
    fs.cpSync(inject('contentDir'), content, { recursive: true });
    fs.writeFileSync(
      path.join(content, 'posts', 'written-after-the-build.md'),
      '---\ntitle: Written after the build\ndescription: Not in the build.\ndate: 2025-01-01\ntags: [testing]\n---\n\nA post the build never saw.\n',
    );
    site = await serveContractBuild({ contentDir: content });
  }, 90_000);

  afterAll(async () => {
    await site?.stop();
    if (content) fs.rmSync(content, { recursive: true, force: true });
  });

  it('a post file added after the build is not published until the next build', async () => {
    for (const pathname of postUrls('written-after-the-build')) expect((await fetch(`${site.baseUrl}${pathname}`)).status, pathname).toBe(404);
    const listed = (await (await fetch(`${site.baseUrl}/api/search?q=written`)).json()) as { results?: unknown[] };
    expect(JSON.stringify(listed)).not.toContain('written-after-the-build');
  });
});

describe("after start, lectern's server generates the older posts in the background", () => {
  let copy: string;
  let site: RunningSite;

  beforeAll(async () => {
    copy = copyBuild();
    fs.rmSync(path.join(copy, 'server', 'route-cache'), { recursive: true, force: true });
    site = await serveContractBuild({ distDir: path.basename(copy), prewarm: true });
  }, 90_000);

  afterAll(async () => {
    await site?.stop();
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it('every URL of the two older posts is generated and kept without a reader asking', async () => {
    await expect.poll(() => site.output(), { timeout: 60_000, interval: 250 }).toContain('generated 2 older posts');
    for (const slug of (await publishedSlugs()).slice(2)) {
      const kept = keptFiles(copy, slug).filter((file) => file.startsWith(path.join('server', 'route-cache')));
      expect(
        kept.some((file) => file.endsWith(`${slug}.html`)),
        slug,
      ).toBe(true);
      expect(
        kept.some((file) => file.endsWith(path.join(slug, 'index.md.body'))),
        slug,
      ).toBe(true);
      expect(
        kept.some((file) => file.endsWith(path.join(slug, 'opengraph-image.body'))),
        slug,
      ).toBe(true);
      expect(
        kept.some((file) => file.endsWith(path.join(slug, 'markdown.body'))),
        slug,
      ).toBe(true);
    }
  });
});
