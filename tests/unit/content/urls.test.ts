import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

beforeEach(() => {
  vi.resetModules();
  vi.stubEnv('SITE_URL', 'https://blog.example.test');
});

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('tagSlug', () => {
  it('makes one URL segment of a tag name, as GitHub makes heading anchors', async () => {
    const { tagSlug } = await import('@/lib/content/urls');
    expect(tagSlug('Next.js')).toBe('nextjs');
    expect(tagSlug('HTTP Caching')).toBe('http-caching');
    expect(tagSlug('Ünïcode')).toBe('ünïcode');
  });

  it('gives tags that differ only in case or punctuation the same slug, and one with no letters a fallback', async () => {
    const { tagSlug } = await import('@/lib/content/urls');
    expect(tagSlug('RSS')).toBe(tagSlug('rss'));
    expect(tagSlug('web!')).toBe(tagSlug('web'));
    expect(tagSlug('!!!')).toBe('tag');
  });
});

describe('post and tag URLs', () => {
  it('spells the paths of a post, its markdown, a tag, its markdown and its feed', async () => {
    const { contentPaths } = await import('@/lib/content/urls');
    expect(contentPaths.post('a-post')).toBe('/blog/a-post');
    expect(contentPaths.postMarkdown('a-post')).toBe('/blog/a-post.md');
    expect(contentPaths.tag('http')).toBe('/tags/http');
    expect(contentPaths.tagMarkdown('http')).toBe('/tags/http.md');
    expect(contentPaths.tagRss('http')).toBe('/tags/http/rss.xml');
  });

  it('makes them absolute on the site URL, a tag from its name', async () => {
    const { urls } = await import('@/lib/content/urls');
    expect(urls.post('a-post')).toBe('https://blog.example.test/blog/a-post');
    expect(urls.postMarkdown('a-post')).toBe('https://blog.example.test/blog/a-post.md');
    expect(urls.tag('HTTP Caching')).toBe('https://blog.example.test/tags/http-caching');
    expect(urls.tagRss('HTTP Caching')).toBe('https://blog.example.test/tags/http-caching/rss.xml');
    expect([urls.rss(), urls.atom(), urls.jsonFeed()]).toEqual([
      'https://blog.example.test/api/rss',
      'https://blog.example.test/atom.xml',
      'https://blog.example.test/feed.json',
    ]);
  });
});
