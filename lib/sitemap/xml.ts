import { absoluteUrl } from '../runtime/site';
import { w3cDateTime } from '../content/dates';
import type { SitemapUrl } from './urls';

/** The sitemaps.org limit of URLs per file. */
export const SITEMAP_MAX_URLS = 50_000;

export { sitemapUrls, type SitemapUrl } from './urls';

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

export function urlset(urls: readonly SitemapUrl[]): string {
  const entries = urls.map(
    ({ loc, lastmod }) =>
      `  <url>\n    <loc>${escapeXml(loc)}</loc>\n${lastmod === undefined ? '' : `    <lastmod>${w3cDateTime(lastmod)}</lastmod>\n`}  </url>\n`,
  );
  return `${HEAD}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('')}</urlset>\n`;
}

export function sitemapIndex(files: readonly SitemapUrl[]): string {
  const entries = files.map(
    ({ loc, lastmod }) =>
      `  <sitemap>\n    <loc>${escapeXml(loc)}</loc>\n${lastmod === undefined ? '' : `    <lastmod>${w3cDateTime(lastmod)}</lastmod>\n`}  </sitemap>\n`,
  );
  return `${HEAD}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('')}</sitemapindex>\n`;
}

/** Pages of at most SITEMAP_MAX_URLS, numbered from 1. */
export function sitemapPages(urls: readonly SitemapUrl[]): SitemapUrl[][] {
  const pages: SitemapUrl[][] = [];
  for (let start = 0; start < urls.length; start += SITEMAP_MAX_URLS) pages.push(urls.slice(start, start + SITEMAP_MAX_URLS));
  return pages;
}

/** /sitemap.xml: a urlset, or past SITEMAP_MAX_URLS an index of /sitemaps/{n}.xml. */
export function sitemapXml(urls: readonly SitemapUrl[]): string {
  if (urls.length <= SITEMAP_MAX_URLS) return urlset(urls);
  return sitemapIndex(
    sitemapPages(urls).map((page, index) => ({
      loc: absoluteUrl(`/sitemaps/${index + 1}.xml`),
      lastmod: page.reduce<number | undefined>((max, url) => (url.lastmod === undefined ? max : Math.max(max ?? 0, url.lastmod)), undefined),
    })),
  );
}
