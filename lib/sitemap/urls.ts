import { absoluteUrl } from '../config';
import { publishedPosts, tags, type Post } from '../content';
import { lastChanged, newestChange } from '../content/dates';
import { laterPageNumbers, pageOf, pagePath } from '../content/pagination';

export type SitemapUrl = { loc: string; lastmod?: number };

/** The later pages of a paginated list (/blog/page/2, …), each dated by the posts it shows. */
function laterPages(base: string, posts: readonly Post[]): SitemapUrl[] {
  return laterPageNumbers(posts.length).map((number) => ({ loc: absoluteUrl(pagePath(base, number)), lastmod: newestChange(pageOf(posts, number)?.items ?? []) }));
}

/** Every indexable HTML page; lastmod from the content it shows, never the build time. */
export function sitemapUrls(): SitemapUrl[] {
  const posts = publishedPosts();
  const newest = newestChange(posts);
  return [
    { loc: absoluteUrl('/'), lastmod: newest },
    { loc: absoluteUrl('/blog'), lastmod: newest },
    ...laterPages('/blog', posts),
    ...posts.map((post) => ({ loc: absoluteUrl(`/blog/${post.slug}`), lastmod: lastChanged(post) })),
    ...tags().flatMap((tag) => [{ loc: absoluteUrl(`/tags/${tag.slug}`), lastmod: newestChange(tag.posts) }, ...laterPages(`/tags/${tag.slug}`, tag.posts)]),
    { loc: absoluteUrl('/apps') },
    { loc: absoluteUrl('/pricing') },
    { loc: absoluteUrl('/docs/api') },
  ];
}
