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
