import { describe, expect, it } from 'vitest';
import { get } from '../support/http';

const MARKERS = ['draft-post', 'future-post', 'Secret draft post', 'Future post', 'SECRET-DRAFT-MARKER', 'SECRET-FUTURE-MARKER'];
const LISTS = ['/', '/blog', '/tags/testing', '/tags/http', '/api/blog', '/api/blog?limit=100', '/api/rss', '/api/home/markdown'];

describe('drafts and future posts', () => {
  it.each(LISTS)('are absent from %s', async (pathname) => {
    const response = await get(pathname);
    expect(response.status).toBe(200);
    const body = await response.text();
    for (const marker of MARKERS) expect(body).not.toContain(marker);
  });

  it.each(['draft-post', 'future-post'])('%s is 404 on its page and all three markdown URLs', async (slug) => {
    const responses = [
      await get(`/blog/${slug}`),
      await get(`/blog/${slug}.md`),
      await get(`/blog/${slug}`, { Accept: 'text/markdown' }),
      await get(`/api/blog/${slug}/markdown`),
    ];
    for (const response of responses) {
      expect(response.status).toBe(404);
      const body = await response.text();
      expect(body).not.toContain('SECRET');
    }
  });
});

/**
 * Every value of a dynamic segment that only the scheduled future-post fills (itself, its tag
 * "unpublished-only", the third page of "testing" and the fifth of /blog, one post a page), asked
 * every way, beside a made-up value of the same segment: the two answers must be the same bytes
 * under the same head (Date aside) and ETag, so nothing tells a scheduled post's tag or page from
 * a guess before its time. (The sitemap files are compared too: the one number a small site's
 * build generates against one it does not.)
 */
const SCHEDULED_VS_MADE_UP: [string, string, Record<string, string>?][] = [
  ['/blog/future-post', '/blog/guessed-post'],
  ['/blog/future-post', '/blog/guessed-post', { Accept: 'text/markdown' }],
  ['/blog/future-post', '/blog/guessed-post', { RSC: '1' }],
  ['/blog/future-post.md', '/blog/guessed-post.md'],
  ['/blog/future-post/index.md', '/blog/guessed-post/index.md'],
  ['/blog/future-post/opengraph-image', '/blog/guessed-post/opengraph-image'],
  ['/api/blog/future-post/markdown', '/api/blog/guessed-post/markdown'],
  ['/tags/unpublished-only', '/tags/guessed-tag'],
  ['/tags/unpublished-only', '/tags/guessed-tag', { Accept: 'text/markdown' }],
  ['/tags/unpublished-only', '/tags/guessed-tag', { RSC: '1' }],
  ['/tags/unpublished-only.md', '/tags/guessed-tag.md'],
  ['/tags/unpublished-only/index.md', '/tags/guessed-tag/index.md'],
  ['/tags/unpublished-only/rss.xml', '/tags/guessed-tag/rss.xml'],
  ['/tags/unpublished-only/page/2', '/tags/guessed-tag/page/2'],
  ['/tags/testing/page/3', '/tags/testing/page/4'],
  ['/tags/testing/page/3', '/tags/testing/page/4', { RSC: '1' }],
  ['/blog/page/5', '/blog/page/6'],
  ['/blog/page/5', '/blog/page/6', { RSC: '1' }],
  ['/sitemaps/1.xml', '/sitemaps/7.xml'],
];

/** Status, every header but Date, and the body's bytes, as a client receives them. */
async function answerOf(pathname: string, headers: Record<string, string>) {
  const response = await get(pathname, headers);
  const head = [...response.headers].filter(([name]) => name !== 'date');
  return { status: response.status, head, etag: response.headers.get('etag'), body: Buffer.from(await response.arrayBuffer()).toString('base64') };
}

describe('a value only a scheduled post fills', () => {
  it.each(SCHEDULED_VS_MADE_UP)('%s answers as the made-up %s does (%o)', async (scheduled, madeUp, headers = {}) => {
    const [ahead, guessed] = [await answerOf(scheduled, headers), await answerOf(madeUp, headers)];
    expect(ahead.status).toBe(404);
    expect(ahead.etag).toMatch(/^"[^"]+"$/);
    expect(ahead).toEqual(guessed);
  });
});
