import type { Metadata } from 'next';
import { absoluteUrl } from './runtime/site';
import { site, urls } from './content';
import { markdownTwinOf } from './http/markdown-twins';

type PageFacts = {
  title: string;
  description: string;
  path: string;
  /** Set on posts: the article Open Graph fields. */
  article?: { slug: string; published: string; modified?: string; author?: string; tags: string[] };
  /** Set on tag pages: the tag's own RSS feed, listed after the site's. */
  tag?: string;
};

/**
 * Title, description, canonical URL, Open Graph, feed (RSS, Atom, JSON Feed) and markdown alternates for one page.
 * Its URLs are absolute; `metadataBase` is the root layout's (app/layout.tsx), which every page inherits.
 */
export function pageMetadata({ title, description, path, article, tag }: PageFacts): Metadata {
  const { name, author } = site();
  const url = absoluteUrl(path);
  const twin = markdownTwinOf(path);
  return {
    title,
    description,
    alternates: {
      canonical: url,
      types: {
        'application/rss+xml': [
          { url: urls.rss(), title: `${name} (RSS)` },
          ...(tag ? [{ url: urls.tagRss(tag), title: `${name}: posts tagged “${tag}” (RSS)` }] : []),
        ],
        'application/atom+xml': [{ url: urls.atom(), title: `${name} (Atom)` }],
        'application/feed+json': [{ url: urls.jsonFeed(), title: `${name} (JSON Feed)` }],
        ...(twin ? { 'text/markdown': [{ url: absoluteUrl(twin.markdownPath), title: article ? 'Markdown source' : 'Markdown' }] } : {}),
      },
    },
    authors: [article?.author ? { name: article.author } : { name: author.name, ...(author.url ? { url: author.url } : {}) }],
    openGraph: article
      ? {
          type: 'article',
          url,
          title,
          description,
          siteName: name,
          publishedTime: article.published,
          ...(article.modified ? { modifiedTime: article.modified } : {}),
          authors: [article.author ?? author.name],
          tags: article.tags,
        }
      : { type: 'website', url, title, description, siteName: name },
    twitter: { card: 'summary_large_image', title, description },
  };
}

/** JSON for a `<script type="application/ld+json">`: `<` escaped so no text can close the script. */
export function jsonLd(data: object): string {
  return JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
