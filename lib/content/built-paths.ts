import { laterPageNumber } from './pagination';
import type { LiveView, PublishedSet } from './published-set';

/** One value of a dynamic segment of app/, as a URL names it. */
export type BuiltValue = { post: string } | { tag: string; page: number } | { blogPage: number } | { app: string } | { sitemap: number };

/** sitemaps.org's limit of URLs per file (SITEMAP_MAX_URLS of lib/sitemap/xml.ts, which loads the content this module must not). */
const SITEMAP_URLS = 50_000;

/**
 * Whether this post, tag page, blog page, sitemap file or app exists now: THE one check of a
 * dynamic segment's value, against the build's list (./published-set.ts) and `live`, what the
 * posts whose time has come fill (liveView). A value it does not know, or one that only a post
 * dated ahead fills (the post, a tag only it carries, a page only it adds), is answered before any
 * rendering, the same way: nothing is generated or kept for it, and nothing tells the two apart.
 * `fixedSitemapUrls`: how many URLs the sitemap lists besides posts and list pages (its fixed pages).
 */
export function knownToBuild(list: PublishedSet, value: BuiltValue, live: LiveView, fixedSitemapUrls = 0): boolean {
  if ('post' in value) return live.slugs.has(value.post);
  if ('tag' in value) {
    const pages = live.tagPages.get(value.tag);
    return pages !== undefined && value.page >= 1 && value.page <= pages;
  }
  // Page 1 is /blog itself.
  if ('blogPage' in value) return value.blogPage >= 2 && value.blogPage <= live.blogPages;
  if ('sitemap' in value) {
    // Files exist only past SITEMAP_URLS URLs: every live post, list page and fixed page.
    const listed = fixedSitemapUrls + live.slugs.size + live.blogPages - 1 + [...live.tagPages.values()].reduce((sum, pages) => sum + pages, 0);
    return listed > SITEMAP_URLS && value.sitemap >= 1 && value.sitemap <= Math.ceil(listed / SITEMAP_URLS);
  }
  return list.apps.includes(value.app);
}

/**
 * Every URL shape under a dynamic segment of app/ that notBuilt answers, `X` standing for a slug,
 * tag or app and `N` for a page or sitemap file number (what the flood test and benchmark send).
 */
export const DYNAMIC_PATHS = [
  '/blog/X',
  '/blog/X.md',
  '/blog/X/index.md',
  '/blog/X/opengraph-image',
  '/api/blog/X/markdown',
  '/tags/X',
  '/tags/X.md',
  '/tags/X/index.md',
  '/tags/X/rss.xml',
  '/tags/X/page/N',
  '/blog/page/N',
  '/sitemaps/N.xml',
  '/api/apps/X/download',
] as const;

/** How a URL whose value the build does not know is answered: Next's not-found page, a markdown 404, a card's text 404, or a problem. */
export type NotBuilt = { answer: 'page' } | { answer: 'markdown' } | { answer: 'card' } | { answer: 'problem'; detail: string };

/** A path segment as the build spells its values; undefined when it cannot be decoded. */
function segment(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** A later page's number from its segment, or 0 (never a page) when it is not one. */
const pageNumber = (raw: string) => laterPageNumber(raw) ?? 0;

/** The value a path under a dynamic segment names, and how it is answered when the build does not know it. */
function valueOf(pathname: string): { value: BuiltValue | undefined; notBuilt: NotBuilt } | undefined {
  let match = /^\/api\/blog\/([^/]+)\/markdown$/.exec(pathname);
  if (match) return { value: named(match[1]!, (post) => ({ post })), notBuilt: { answer: 'problem', detail: 'No published post has this slug.' } };
  match = /^\/api\/apps\/([^/]+)\/download$/.exec(pathname);
  if (match) return { value: named(match[1]!, (app) => ({ app })), notBuilt: { answer: 'problem', detail: 'No desktop app has this slug.' } };
  match = /^\/sitemaps\/([^/]+)$/.exec(pathname);
  if (match) return { value: { sitemap: Number(/^([1-9][0-9]{0,5})\.xml$/.exec(match[1]!)?.[1] ?? 0) }, notBuilt: { answer: 'page' } };
  match = /^\/blog\/page\/([^/]+)$/.exec(pathname);
  if (match) return { value: { blogPage: pageNumber(match[1]!) }, notBuilt: { answer: 'page' } };
  match = /^\/blog\/([^/]+?)(\.md|\/index\.md|\/opengraph-image)?$/.exec(pathname);
  if (match) {
    const suffix = match[2];
    return { value: named(match[1]!, (post) => ({ post })), notBuilt: { answer: suffix === '/opengraph-image' ? 'card' : suffix ? 'markdown' : 'page' } };
  }
  match = /^\/tags\/([^/]+)\/page\/([^/]+)$/.exec(pathname);
  if (match) return { value: named(match[1]!, (tag) => ({ tag, page: pageNumber(match![2]!) })), notBuilt: { answer: 'page' } };
  match = /^\/tags\/([^/]+?)(\.md|\/index\.md|\/rss\.xml)?$/.exec(pathname);
  if (match) {
    const markdown = match[2] === '.md' || match[2] === '/index.md';
    return { value: named(match[1]!, (tag) => ({ tag, page: 1 })), notBuilt: { answer: markdown ? 'markdown' : 'page' } };
  }
  return undefined;
}

function named(raw: string, value: (name: string) => BuiltValue): BuiltValue | undefined {
  const name = segment(raw);
  return name === undefined ? undefined : value(name);
}

/**
 * How to answer a URL under one of app/'s dynamic segments whose value does not exist now (a
 * made-up slug, tag, page number or app, or one only a post dated ahead fills), or undefined for
 * every other URL. Next keeps what it generates for a dynamic segment, 404s included, on disk and
 * in memory, and its 404 for a value the build generated differs from its 404 for one it did not:
 * answered here, a value that does not exist costs nothing that stays, and every such value gets
 * the same answer.
 */
export function notBuilt(pathname: string, list: PublishedSet, live: LiveView, fixedSitemapUrls = 0): NotBuilt | undefined {
  const found = valueOf(pathname);
  if (!found) return undefined;
  return found.value && knownToBuild(list, found.value, live, fixedSitemapUrls) ? undefined : found.notBuilt;
}
