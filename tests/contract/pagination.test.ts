import fs from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, inject, it } from 'vitest';
import { ROOT } from '../support/site';
import { elementsOf } from '../support/html-urls';
import { get, url } from '../support/http';

// The contract site is built with POSTS_PER_PAGE=1 (tests/contract/global-setup.ts).
const NEWEST_FIRST = ['escaping-post', 'beta-post', 'gamma-post', 'alpha-post'];

async function page(pathname: string) {
  const response = await get(pathname);
  const html = await response.text();
  const anchors = elementsOf(html, 'a');
  const navs = elementsOf(html, 'nav').filter((nav) => nav['aria-label'] === 'Pagination');
  const headLinks = elementsOf(html, 'link', 'head');
  return {
    response,
    html,
    posts: anchors.map((a) => /^\/blog\/([a-z0-9-]+)$/.exec(a.href ?? '')?.[1]).filter((slug): slug is string => slug !== undefined && slug !== 'page'),
    navs,
    prev: anchors.filter((a) => a.rel === 'prev').map((a) => a.href),
    next: anchors.filter((a) => a.rel === 'next').map((a) => a.href),
    current: anchors.filter((a) => a['aria-current'] === 'page').map((a) => a.href),
    headPrev: headLinks.filter((link) => link.rel === 'prev').map((link) => link.href),
    headNext: headLinks.filter((link) => link.rel === 'next').map((link) => link.href),
    canonical: headLinks.find((link) => link.rel === 'canonical')?.href,
    title: /<title>([^<]*)<\/title>/.exec(html)?.[1],
  };
}

describe('/blog pagination', () => {
  it('shows the newest page on /blog, linking the next page with rel="next" and marking itself current', async () => {
    const first = await page('/blog');
    expect(first.response.status).toBe(200);
    expect(first.posts).toEqual(['escaping-post']);
    expect(first.navs).toHaveLength(1);
    expect(first.prev).toEqual([]);
    expect(first.next).toEqual(['/blog/page/2']);
    expect(first.current).toEqual(['/blog']);
    expect(first.headPrev).toEqual([]);
    expect(first.headNext).toEqual([url('/blog/page/2')]);
    expect(first.canonical).toBe(url('/blog'));
  });

  it('gives each later page its posts, rel="prev" and rel="next" links, its own canonical URL and title', async () => {
    const second = await page('/blog/page/2');
    expect(second.response.status).toBe(200);
    expect(second.response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(second.posts).toEqual(['beta-post']);
    expect(second.prev).toEqual(['/blog']);
    expect(second.next).toEqual(['/blog/page/3']);
    expect(second.current).toEqual(['/blog/page/2']);
    expect(second.headPrev).toEqual([url('/blog')]);
    expect(second.headNext).toEqual([url('/blog/page/3')]);
    expect(second.canonical).toBe(url('/blog/page/2'));
    expect(second.title).toBe('Blog, page 2 of 4 · Fixture &amp; Co');

    const last = await page('/blog/page/4');
    expect(last.posts).toEqual(['alpha-post']);
    expect(last.prev).toEqual(['/blog/page/3']);
    expect(last.next).toEqual([]);
    expect(last.headNext).toEqual([]);
  });

  it('walks from /blog by rel="next" through every published post, newest first, each page the configured size', async () => {
    const seen: string[] = [];
    let pathname: string | undefined = '/blog';
    for (let pages = 0; pathname && pages < 10; pages++) {
      const current = await page(pathname);
      expect(current.posts.length).toBeLessThanOrEqual(1);
      seen.push(...current.posts);
      pathname = current.next[0];
    }
    expect(seen).toEqual(NEWEST_FIRST);
  });

  it.each([
    '/blog/page/1',
    '/blog/page/5',
    '/blog/page/0',
    '/blog/page/02',
    '/blog/page/x',
    '/blog/page/2.5',
    '/blog/page/-1',
    '/blog/page/2/more',
    '/blog/page',
  ])('%s is the HTML 404 page', async (pathname) => {
    const response = await get(pathname);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});

describe('tag pagination', () => {
  it('pages a tag the same way under /tags/{tag}/page/{n}', async () => {
    const first = await page('/tags/testing');
    expect(first.posts).toEqual(['beta-post']);
    expect(first.next).toEqual(['/tags/testing/page/2']);
    expect(first.headNext).toEqual([url('/tags/testing/page/2')]);
    const second = await page('/tags/testing/page/2');
    expect(second.response.status).toBe(200);
    expect(second.posts).toEqual(['alpha-post']);
    expect(second.prev).toEqual(['/tags/testing']);
    expect(second.next).toEqual([]);
    expect(second.current).toEqual(['/tags/testing/page/2']);
    expect(second.canonical).toBe(url('/tags/testing/page/2'));
    expect(second.title).toBe('Posts tagged “testing”, page 2 of 2 · Fixture &amp; Co');
  });

  it('shows no pagination on a tag whose posts fit on one page', async () => {
    const only = await page('/tags/http');
    expect(only.posts).toEqual(['alpha-post']);
    expect(only.navs).toEqual([]);
    expect([...only.prev, ...only.next, ...only.headPrev, ...only.headNext]).toEqual([]);
  });

  it.each(['/tags/testing/page/1', '/tags/testing/page/3', '/tags/http/page/2', '/tags/no-such-tag/page/2', '/tags/testing/page/two'])(
    '%s is the HTML 404 page',
    async (pathname) => {
      const response = await get(pathname);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    },
  );
});

describe('pagination pages are static', () => {
  it('are prerendered at build, and no other page number is rendered on request', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, inject('distDir'), 'prerender-manifest.json'), 'utf8')) as {
      routes: Record<string, unknown>;
      dynamicRoutes: Record<string, { fallback: unknown }>;
    };
    for (const pathname of ['/blog/page/2', '/blog/page/3', '/blog/page/4', '/tags/testing/page/2']) expect(manifest.routes[pathname], pathname).toBeDefined();
    // And the pages the scheduled future-post will fill when it goes live (a 404 until then).
    expect(
      Object.keys(manifest.routes)
        .filter((pathname) => pathname.includes('/page/'))
        .sort(),
    ).toEqual(['/blog/page/2', '/blog/page/3', '/blog/page/4', '/blog/page/5', '/tags/testing/page/2', '/tags/testing/page/3']);
    expect(manifest.dynamicRoutes['/blog/page/[page]']?.fallback).toBe(false);
    expect(manifest.dynamicRoutes['/tags/[tag]/page/[page]']?.fallback).toBe(false);
  });

  it('are listed in the sitemap', async () => {
    const parsed = new XMLParser({ isArray: (name) => name === 'url' }).parse(await (await get('/sitemap.xml')).text());
    const locs = (parsed.urlset.url as { loc: string }[]).map((entry) => entry.loc);
    expect(locs).toEqual(expect.arrayContaining(['/blog/page/2', '/blog/page/3', '/blog/page/4', '/tags/testing/page/2'].map(url)));
    expect(locs).not.toContain(url('/blog/page/1'));
  });
});
