import type { Metadata } from 'next';
import { absoluteUrl, config } from './config';
import { site, urls } from './content';
import { markdownTwinOf } from './http/markdown-twins';

type PageFacts = {
  title: string;
  description: string;
  path: string;
  /** Set on posts: the article Open Graph fields. */
  article?: { slug: string; published: string; modified?: string; tags: string[] };
};

/** Title, description, canonical URL, Open Graph, RSS and markdown alternates for one page. */
export function pageMetadata({ title, description, path, article }: PageFacts): Metadata {
  const { name, author } = site();
  const url = absoluteUrl(path);
  const twin = markdownTwinOf(path);
  return {
    metadataBase: new URL(config().siteUrl),
    title,
    description,
    alternates: {
      canonical: url,
      types: {
        'application/rss+xml': [{ url: urls.rss(), title: `${name} (RSS)` }],
        ...(twin ? { 'text/markdown': [{ url: absoluteUrl(twin.markdownPath), title: article ? 'Markdown source' : 'Markdown' }] } : {}),
      },
    },
    authors: [{ name: author.name, ...(author.url ? { url: author.url } : {}) }],
    openGraph: article
      ? {
          type: 'article',
          url,
          title,
          description,
          siteName: name,
          publishedTime: article.published,
          ...(article.modified ? { modifiedTime: article.modified } : {}),
          authors: [author.name],
          tags: article.tags,
        }
      : { type: 'website', url, title, description, siteName: name },
    twitter: { card: 'summary_large_image', title, description },
  };
}

/** JSON for a `<script type="application/ld+json">`: `<` escaped so no text can close the script. */
export function jsonLd(data: object): string {
  return JSON.stringify(data).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
