import { describe, expect, it } from 'vitest';
import { get, url, varyOf } from '../support/http';

/** Each page with a twin: its path, the twin's `.md` URL, and a line the markdown must hold. */
const PAGES: [string, string, string][] = [
  ['/', '/index.md', '# Fixture home'],
  ['/blog', '/blog.md', '# Blog'],
  ['/tags/testing', '/tags/testing.md', '# Posts tagged “testing”'],
  ['/pricing', '/pricing.md', '# Pricing: Fixture & Co'],
  ['/apps', '/apps.md', '## Fixture App'],
  ['/docs/api', '/docs/api.md', '# API and agent files'],
  ['/support', '/support.md', '# Support'],
  ['/blog/alpha-post', '/blog/alpha-post.md', 'title: Alpha post'],
];

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const UNPUBLISHED = ['draft-post', 'future-post', 'SECRET', 'Secret draft post', 'Future post'];

/** The attributes of every `<link ...>` of a page. */
function linksOf(html: string): Record<string, string>[] {
  return [...html.matchAll(/<link\s([^>]*?)\/?>/g)].map((match) =>
    Object.fromEntries([...(match[1] ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)].map((attribute) => [attribute[1], attribute[2]])),
  );
}

/** The absolute `.md` URLs a markdown body links to, in order. */
const markdownLinks = (body: string) => [...body.matchAll(/\]\((\S+?\.md)\)/g)].map((match) => match[1]);

function expectMarkdown(response: Response, page: string) {
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
  expect(response.headers.get('content-signal')).toBe('search=yes, ai-input=yes, ai-train=no');
  expect(response.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30, stale-while-revalidate=30');
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  expect(response.headers.get('etag')).toMatch(/^"[\w-]+"$/);
  // An HTTP date (RFC 9110 IMF-fixdate), never later than now: the newest change the page shows, or the build.
  const lastModified = response.headers.get('last-modified') ?? '';
  expect(lastModified).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  expect(Date.parse(lastModified)).toBeLessThanOrEqual(Date.now());
  expect(response.headers.get('link')).toBe(`<${url(page === '/' ? '/' : page)}>; rel="canonical"; type="text/html"`);
}

describe.each(PAGES)('%s has a markdown twin at %s', (page, markdownPath, line) => {
  it('served at the .md URL', async () => {
    const response = await get(markdownPath);
    expectMarkdown(response, page);
    expect(varyOf(response)).not.toContain('accept');
    expect(await response.text()).toContain(line);
  });

  it.each(['text/markdown', 'text/markdown, text/html;q=0.9', 'text/html;q=0.5, text/markdown'])(
    'served at the page URL to Accept: %s, the same bytes, with Vary: Accept',
    async (accept) => {
      const [negotiated, twin] = await Promise.all([get(page, { Accept: accept }), get(markdownPath)]);
      expectMarkdown(negotiated, page);
      expect(varyOf(negotiated)).toContain('accept');
      expect(negotiated.headers.get('etag')).toBe(twin.headers.get('etag'));
      expect(await negotiated.text()).toBe(await twin.text());
    },
  );

  it.each([BROWSER, '*/*', 'text/*', 'text/html, text/markdown;q=0.9', 'text/markdown;q=0', undefined])(
    'not served to Accept: %s, which gets the HTML page',
    async (accept) => {
      const response = await get(page, accept === undefined ? {} : { Accept: accept });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(varyOf(response)).toContain('accept');
      expect(await response.text()).toMatch(/^<!DOCTYPE html>/i);
    },
  );

  it('advertised by the HTML page in its head and as a Link header', async () => {
    const response = await get(page, { Accept: BROWSER });
    const alternate = `<${url(markdownPath)}>; rel="alternate"; type="text/markdown"`;
    expect((response.headers.get('link') ?? '').split(/,\s*(?=<)/)).toContain(alternate);
    expect(linksOf(await response.text())).toContainEqual(expect.objectContaining({ rel: 'alternate', type: 'text/markdown', href: url(markdownPath) }));
  });

  it('HEAD of either variant keeps Vary: Accept and the headers of its GET', async () => {
    for (const accept of ['text/markdown', BROWSER]) {
      const [head, full] = [await get(page, { Accept: accept }, 'HEAD'), await get(page, { Accept: accept })];
      expect(head.status).toBe(200);
      expect(varyOf(head)).toContain('accept');
      expect(head.headers.get('content-type')).toBe(full.headers.get('content-type'));
      expect(head.headers.get('etag')).toBe(full.headers.get('etag'));
    }
  });
});

describe('list pages as markdown', () => {
  const NEWEST_FIRST = ['escaping-post', 'beta-post', 'gamma-post', 'alpha-post'];

  it('/blog.md lists every published post by its markdown URL, newest first, and the tags by theirs', async () => {
    const body = await (await get('/blog.md')).text();
    const links = markdownLinks(body);
    expect(links.filter((link) => link?.includes('/blog/'))).toEqual(NEWEST_FIRST.map((slug) => url(`/blog/${slug}.md`)));
    expect(links.filter((link) => link?.includes('/tags/'))).toEqual(['testing', 'escaping', 'http'].map((tag) => url(`/tags/${tag}.md`)));
    for (const link of links) expect((await get(new URL(link ?? '').pathname)).status, link).toBe(200);
  });

  it('/tags/testing.md lists the posts of that tag only', async () => {
    const body = await (await get('/tags/testing.md')).text();
    expect(markdownLinks(body).filter((link) => link?.includes('/blog/'))).toEqual(['beta-post', 'alpha-post'].map((slug) => url(`/blog/${slug}.md`)));
  });

  it('/index.md is /api/home/markdown, byte for byte', async () => {
    const [twin, api] = await Promise.all([get('/index.md'), get('/api/home/markdown')]);
    expect(await twin.text()).toBe(await api.text());
  });

  it('/apps.md gives the download link of each app', async () => {
    expect(await (await get('/apps.md')).text()).toContain(`- Download: ${url('/api/apps/fixture-app/download')}`);
  });

  it.each(['/index.md', '/blog.md', '/tags/testing.md', '/blog', '/'])('%s never shows a draft or a future post', async (pathname) => {
    const body = await (await get(pathname, { Accept: 'text/markdown' })).text();
    for (const marker of UNPUBLISHED) expect(body).not.toContain(marker);
  });
});

describe('a twin that finds nothing', () => {
  it.each([
    ['/tags/no-such-tag.md', {}],
    ['/tags/no-such-tag', { Accept: 'text/markdown' }],
    ['/tags/unpublished-only.md', {}],
    ['/tags/unpublished-only', { Accept: 'text/markdown' }],
  ])('%s answers a short text/markdown 404', async (pathname, headers: Record<string, string>) => {
    const response = await get(pathname, headers);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await response.text()).toMatch(/^# Not found/);
  });

  it('an unknown tag page asked for as HTML is the HTML 404 page', async () => {
    const response = await get('/tags/no-such-tag', { Accept: BROWSER });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('pages that only answer a form have no twin', async () => {
    for (const pathname of ['/support/sent.md', '/subscribe/confirmed.md']) expect((await get(pathname)).status, pathname).toBe(404);
    const response = await get('/support/sent', { Accept: 'text/markdown' });
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });
});
