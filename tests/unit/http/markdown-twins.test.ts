import { describe, expect, it } from 'vitest';
import { markdownTwinOf, markdownUrlRoute } from '@/lib/http/markdown-twins';

describe('markdownTwinOf', () => {
  it.each([
    ['/', '/index.md', '/index.md'],
    ['/blog', '/blog.md', '/blog.md'],
    ['/pricing', '/pricing.md', '/pricing.md'],
    ['/apps', '/apps.md', '/apps.md'],
    ['/docs/api', '/docs/api.md', '/docs/api.md'],
    ['/support', '/support.md', '/support.md'],
    ['/blog/a-post', '/blog/a-post.md', '/blog/a-post/index.md'],
    ['/tags/http', '/tags/http.md', '/tags/http/index.md'],
  ])('%s has its twin at %s, served by %s', (pathname, markdownPath, route) => {
    expect(markdownTwinOf(pathname)).toEqual({ markdownPath, route });
  });

  it.each(['/blog/a-post.md', '/tags/http.md', '/index.md', '/blog.md', '/tags', '/blog/a/b', '/support/sent', '/subscribe/confirm', '/api/blog', '/docs'])(
    '%s is no page with a twin',
    (pathname) => {
      expect(markdownTwinOf(pathname)).toBeUndefined();
    },
  );
});

describe('markdownUrlRoute', () => {
  it.each([
    ['/blog/a-post.md', '/blog/a-post/index.md'],
    ['/tags/http.md', '/tags/http/index.md'],
    ['/blog/a-post', undefined],
    ['/blog.md', undefined],
    ['/blog/a/b.md', undefined],
    ['/pricing.md', undefined],
  ])('%s is served by %s', (pathname, route) => {
    expect(markdownUrlRoute(pathname)).toBe(route);
  });
});
