import { describe, expect, it } from 'vitest';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings({ SITE_URL: 'https://blog.example' });

const { sitemapUrls } = await import('@/lib/sitemap/urls');
const { settings } = await import('@/lib/settings');
const { publishedPosts, tags } = await import('@/lib/content');
const { lastChanged } = await import('@/lib/content/dates');

describe('sitemapUrls', () => {
  const urls = sitemapUrls(settings().site);
  const byLoc = new Map(urls.map((url) => [url.loc, url]));

  it('lists the home page, the blog, every published post and tag page, and the fixed pages, each once', () => {
    expect(new Set(urls.map((url) => url.loc)).size).toBe(urls.length);
    for (const path of ['/', '/blog', '/apps', '/pricing', '/docs/api']) expect(byLoc.has(`https://blog.example${path}`)).toBe(true);
    for (const post of publishedPosts()) expect(byLoc.has(`https://blog.example/blog/${post.slug}`)).toBe(true);
    for (const tag of tags()) expect(byLoc.has(`https://blog.example/tags/${tag.slug}`)).toBe(true);
  });

  it('dates a post by its last change and the home page by the newest post', () => {
    const posts = publishedPosts();
    for (const post of posts) expect(byLoc.get(`https://blog.example/blog/${post.slug}`)?.lastmod).toBe(lastChanged(post));
    expect(byLoc.get('https://blog.example/')?.lastmod).toBe(Math.max(...posts.map(lastChanged)));
    expect(byLoc.get('https://blog.example/pricing')?.lastmod).toBeUndefined();
  });
});
