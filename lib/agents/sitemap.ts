import { absoluteUrl } from '../config';
import { publishedPosts, tags, type Post } from '../content';
import { lastChanged, w3cDateTime } from '../content/dates';
import { laterPageNumbers, pageOf, pagePath } from '../content/pagination';
import { lastModified } from '../content/source';
import { publicEndpoints, type PublicEndpoint } from './public-endpoints';

/** The sitemaps.org limit of URLs per file. */
export const SITEMAP_MAX_URLS = 50_000;

export type SitemapUrl = { loc: string; lastmod?: number };

/** The later pages of a paginated list (/blog/page/2, …), each dated by the posts it shows. */
function laterPages(base: string, posts: readonly Post[]): SitemapUrl[] {
  return laterPageNumbers(posts.length).map((number) => ({ loc: absoluteUrl(pagePath(base, number)), lastmod: lastModified(pageOf(posts, number)?.items ?? []) }));
}

/** Every indexable HTML page; lastmod from the content it shows, never the build time. */
export function sitemapUrls(): SitemapUrl[] {
  const posts = publishedPosts();
  const newest = lastModified(posts);
  const fixed = publicEndpoints().filter((entry) => entry.sitemap);
  const fixedPage = (entry: PublicEndpoint): SitemapUrl => ({ loc: absoluteUrl(entry.path), ...(entry.sitemap === 'posts' ? { lastmod: newest } : {}) });
  return [
    ...fixed.filter((entry) => entry.sitemap === 'posts').map(fixedPage),
    ...laterPages('/blog', posts),
    ...posts.map((post) => ({ loc: post.url, lastmod: lastChanged(post) })),
    ...tags().flatMap((tag) => [{ loc: absoluteUrl(tag.path), lastmod: lastModified(tag.posts) }, ...laterPages(tag.path, tag.posts)]),
    ...fixed.filter((entry) => entry.sitemap === 'undated').map(fixedPage),
  ];
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

export function urlset(urls: readonly SitemapUrl[]): string {
  const entries = urls.map(
    ({ loc, lastmod }) => `  <url>\n    <loc>${escapeXml(loc)}</loc>\n${lastmod === undefined ? '' : `    <lastmod>${w3cDateTime(lastmod)}</lastmod>\n`}  </url>\n`,
  );
  return `${HEAD}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('')}</urlset>\n`;
}

export function sitemapIndex(files: readonly SitemapUrl[]): string {
  const entries = files.map(
    ({ loc, lastmod }) => `  <sitemap>\n    <loc>${escapeXml(loc)}</loc>\n${lastmod === undefined ? '' : `    <lastmod>${w3cDateTime(lastmod)}</lastmod>\n`}  </sitemap>\n`,
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
export function sitemapXml(urls: readonly SitemapUrl[] = sitemapUrls()): string {
  if (urls.length <= SITEMAP_MAX_URLS) return urlset(urls);
  return sitemapIndex(
    sitemapPages(urls).map((page, index) => ({
      loc: absoluteUrl(`/sitemaps/${index + 1}.xml`),
      lastmod: page.reduce<number | undefined>((max, url) => (url.lastmod === undefined ? max : Math.max(max ?? 0, url.lastmod)), undefined),
    })),
  );
}
