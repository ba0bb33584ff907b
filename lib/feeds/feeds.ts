import { Feed } from 'feed';
import { z } from 'zod';
import { LICENSE_PATH, RSL_NAMESPACE, RSL_TYPE } from '../agents/terms';
import { absoluteUrl } from '../runtime/site';
import { publishedPosts, site, urls, type Post, type Tag } from '../content';
import { lastChanged } from '../content/dates';
import { renderMarkdown } from '../content/render';
import { lastModified } from '../content/source';

/** How many of the newest posts each feed holds. */
export const FEED_ITEM_COUNT = 50;

export const JSON_FEED_VERSION = 'https://jsonfeed.org/version/1.1';

/** What /feed.json holds (JSON Feed 1.1); the feed is checked against it as it is written, and /openapi.json describes it. */
export const jsonFeedSchema = z.object({
  version: z.literal(JSON_FEED_VERSION),
  title: z.string(),
  home_page_url: z.url(),
  feed_url: z.url(),
  description: z.string(),
  language: z.string(),
  authors: z.array(z.object({ name: z.string(), url: z.url().optional() })),
  /** A JSON Feed extension (its name starts with `_`): the site's licence, RSL 1.0 (lib/agents/terms.ts). */
  _license: z.object({ about: z.url(), type: z.literal(RSL_TYPE), url: z.url() }),
  items: z.array(
    z.object({
      id: z.string(),
      url: z.url(),
      title: z.string(),
      summary: z.string(),
      content_html: z.string(),
      date_published: z.iso.datetime(),
      date_modified: z.iso.datetime(),
      authors: z.array(z.object({ name: z.string(), url: z.url().optional() })).min(1),
      tags: z.array(z.string()),
    }),
  ),
});

/** The three formats, each with its media type (sent as `type; charset=utf-8`). */
export const feedTypes = { rss: 'application/rss+xml', atom: 'application/atom+xml', json: 'application/feed+json' } as const;
type Format = keyof typeof feedTypes;

type Source = { title: string; description: string; link: string; self: string; posts: readonly Post[] };

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

type Author = { name: string; link?: string };

/** Who wrote a post: `author:` in its frontmatter, else the site's author. */
export function postAuthor(post: Pick<Post, 'author'>): Author {
  const { author } = site();
  return post.author ? { name: post.author } : { name: author.name, ...(author.url ? { link: author.url } : {}) };
}

const DC = 'http://purl.org/dc/elements/1.1/';

/**
 * RSS 2.0's own `author` (and `managingEditor`) take an email address, which the site does not
 * publish; readers show Dublin Core's `dc:creator`, a name. The feed package writes neither, so
 * each is added to what it wrote: the channel's after its title, each item's at its end, in the
 * items' order.
 */
function withCreators(xml: string, channel: Author, items: readonly Author[]): string {
  const creator = (author: Author) => `<dc:creator>${escapeHtml(author.name)}</dc:creator>`;
  let index = 0;
  const declared = xml.includes(`xmlns:dc="${DC}"`) ? xml : xml.replace('<rss version="2.0"', `<rss version="2.0" xmlns:dc="${DC}"`);
  return declared
    .replace(/(<channel>[\s\S]*?<\/title>)/, `$1\n        ${creator(channel)}`)
    .replace(/<\/item>/g, (end) => `    ${creator(items[index++]!)}\n        ${end}`);
}

/**
 * The site's licence (RSL 1.0, lib/agents/terms.ts), linked from each feed's head: RSS as an
 * `atom:link rel="license"` in the channel (the feed already declares the Atom namespace for its
 * self link), Atom as a `link rel="license"` (RFC 4946). The feed package writes neither.
 */
function withLicenseLink(xml: string, format: 'rss' | 'atom'): string {
  const href = escapeHtml(absoluteUrl(LICENSE_PATH));
  if (format === 'atom') return xml.replace(/(<feed\b[^>]*>)/, `$1\n    <link rel="license" type="${RSL_TYPE}" href="${href}"/>`);
  return xml.replace(/(<atom:link [^>]*rel="self"[^>]*\/>)/, `$1\n        <atom:link href="${href}" rel="license" type="${RSL_TYPE}"/>`);
}

/** Atom's `xml:lang` on the root: the language of every text in the feed. */
function withLanguage(xml: string, language: string): string {
  return xml.replace('<feed xmlns="http://www.w3.org/2005/Atom"', `<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${escapeHtml(language)}"`);
}

/**
 * A post's full HTML as every feed carries it: each URL in it (root-relative,
 * document-relative, fragment, srcset) resolved against the post's own URL,
 * because a feed reader shows it away from the site.
 */
export async function feedItemHtml(post: Post): Promise<string> {
  return (await renderMarkdown(post.body, { baseUrl: post.url })).html;
}

async function buildFeed(source: Source, format: Format): Promise<Feed> {
  const { author, language } = site();
  const posts = source.posts.slice(0, FEED_ITEM_COUNT);
  const newest = lastModified(posts);
  const feed = new Feed({
    title: source.title,
    description: source.description,
    id: source.link,
    link: source.link,
    language,
    copyright: `© ${author.name}`,
    author: { name: author.name, ...(author.url ? { link: author.url } : {}) },
    updated: newest === undefined ? undefined : new Date(newest),
    feedLinks: { [format]: source.self },
    generator: 'lectern',
  });
  for (const post of posts) {
    feed.addItem({
      // Atom sends title and summary as type="html": their text is escaped there, and only there.
      title: format === 'atom' ? escapeHtml(post.title) : post.title,
      // RSS's guid is the link, a permalink; a separate id would make it a non-permalink guid.
      ...(format === 'rss' ? {} : { id: post.url }),
      link: post.url,
      // RSS takes pubDate from `published`; Atom and JSON Feed take their modified date from `date`.
      date: new Date(lastChanged(post)),
      published: new Date(post.dateMillis),
      description: format === 'atom' ? escapeHtml(post.description) : post.description,
      content: await feedItemHtml(post),
      author: [postAuthor(post)],
      category: post.tags.map((tag) => ({ name: tag, domain: urls.tag(tag), term: tag })),
    });
  }
  return feed;
}

function siteSource(self: string): Source {
  const { name, summary } = site();
  return { title: name, description: summary, link: absoluteUrl('/'), self, posts: publishedPosts() };
}

/** RSS 2.0 of a list of posts, each item (and the channel) with its author as dc:creator. */
async function rss(source: Source): Promise<string> {
  const { author } = site();
  const written = withLicenseLink((await buildFeed(source, 'rss')).rss2(), 'rss');
  return withCreators(written, { name: author.name }, source.posts.slice(0, FEED_ITEM_COUNT).map(postAuthor));
}

/** RSS 2.0 of the newest published posts, full HTML in content:encoded. */
export async function rssFeed(): Promise<string> {
  return rss(siteSource(urls.rss()));
}

/** Atom 1.0 of the newest published posts, in the site's language (xml:lang), each entry with its author. */
export async function atomFeed(): Promise<string> {
  return withLicenseLink(withLanguage((await buildFeed(siteSource(urls.atom()), 'atom')).atom1(), site().language), 'atom');
}

/**
 * JSON Feed 1.1 of the newest published posts. The feed package writes
 * version 1; 1.1 names the version, lists `authors` instead of `author` (on
 * the feed and on each item), and adds `language`.
 */
export async function jsonFeed(): Promise<string> {
  const written = JSON.parse((await buildFeed(siteSource(urls.jsonFeed()), 'json')).json1()) as Record<string, unknown> & {
    author?: unknown;
    items: (Record<string, unknown> & { author?: unknown })[];
  };
  const { author, items, ...rest } = written;
  const upgraded = jsonFeedSchema.parse({
    ...rest,
    version: JSON_FEED_VERSION,
    language: site().language,
    authors: author ? [author] : [],
    _license: { about: RSL_NAMESPACE, type: RSL_TYPE, url: absoluteUrl(LICENSE_PATH) },
    items: items.map(({ author: itemAuthor, ...item }) => ({ ...item, authors: itemAuthor ? [itemAuthor] : [] })),
  });
  return `${JSON.stringify(upgraded, null, 2)}\n`;
}

/** RSS 2.0 of the newest published posts of one tag. */
export async function tagRssFeed(tag: Tag): Promise<string> {
  const { name } = site();
  const source: Source = {
    title: `${name}: posts tagged “${tag.name}”`,
    description: `Posts about ${tag.name} on ${name}.`,
    link: urls.tag(tag.name),
    self: urls.tagRss(tag.name),
    posts: tag.posts,
  };
  return rss(source);
}
