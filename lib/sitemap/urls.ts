import { absoluteUrl } from '../runtime/site';
import { publishedPosts, tags, type Post } from '../content';
import { lastChanged } from '../content/dates';
import { laterPageNumbers, pageOf, pagePath } from '../content/pagination';
import { lastModified } from '../content/source';
import { publicEndpoints, type PublicEndpoint } from '../public-endpoints';
import type { Settings } from '../settings';

export type SitemapUrl = { loc: string; lastmod?: number };

/** The later pages of a paginated list (/blog/page/2, …), each dated by the posts it shows. */
function laterPages(base: string, posts: readonly Post[], perPage: number): SitemapUrl[] {
  return laterPageNumbers(posts.length, perPage).map((number) => ({
    loc: absoluteUrl(pagePath(base, number)),
    lastmod: lastModified(pageOf(posts, number, perPage)?.items ?? []),
  }));
}

/** Every indexable HTML page (the lists `postsPerPage` posts a page); lastmod from the content it shows, never the build time. */
export function sitemapUrls({ postsPerPage }: Pick<Settings['site'], 'postsPerPage'>): SitemapUrl[] {
  const posts = publishedPosts();
  const newest = lastModified(posts);
  const fixed = publicEndpoints().filter((entry) => entry.sitemap);
  const fixedPage = (entry: PublicEndpoint): SitemapUrl => ({ loc: absoluteUrl(entry.path), ...(entry.sitemap === 'posts' ? { lastmod: newest } : {}) });
  return [
    ...fixed.filter((entry) => entry.sitemap === 'posts').map(fixedPage),
    ...laterPages('/blog', posts, postsPerPage),
    ...posts.map((post) => ({ loc: post.url, lastmod: lastChanged(post) })),
    ...tags().flatMap((tag) => [{ loc: absoluteUrl(tag.path), lastmod: lastModified(tag.posts) }, ...laterPages(tag.path, tag.posts, postsPerPage)]),
    ...fixed.filter((entry) => entry.sitemap === 'undated').map(fixedPage),
  ];
}
