import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { SITEMAP_MAX_URLS, sitemapPages, sitemapXml, urlset } from '@/lib/sitemap/xml';

const many = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ loc: `https://site.example/blog/post-${index}`, lastmod: Date.UTC(2025, 0, 1) + index * 1000 }));

describe('sitemap', () => {
  it('is one urlset up to 50,000 URLs', () => {
    const xml = sitemapXml(many(SITEMAP_MAX_URLS));
    const parsed = new XMLParser().parse(xml);
    expect(parsed.urlset.url).toHaveLength(SITEMAP_MAX_URLS);
  });

  it('becomes an index of 50,000-URL pages past that, each page dated by its newest URL', () => {
    const urls = many(SITEMAP_MAX_URLS * 2 + 1);
    const index = new XMLParser({ isArray: (name) => name === 'sitemap' }).parse(sitemapXml(urls));
    expect(index.sitemapindex.sitemap).toHaveLength(3);
    expect(index.sitemapindex.sitemap[0].loc).toMatch(/\/sitemaps\/1\.xml$/);
    expect(index.sitemapindex.sitemap[2].lastmod).toBe(new Date(urls.at(-1)!.lastmod).toISOString().replace('.000Z', '+00:00'));
    expect(sitemapPages(urls).map((page) => page.length)).toEqual([SITEMAP_MAX_URLS, SITEMAP_MAX_URLS, 1]);
  });

  it('escapes URLs and writes lastmod with seconds', () => {
    const xml = urlset([{ loc: 'https://site.example/?a=1&b=<2>', lastmod: Date.UTC(2025, 1, 3, 4, 5, 6, 789) }]);
    expect(xml).toContain('<loc>https://site.example/?a=1&amp;b=&lt;2&gt;</loc>');
    expect(xml).toContain('<lastmod>2025-02-03T04:05:06+00:00</lastmod>');
  });
});
