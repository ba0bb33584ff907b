import GithubSlugger from 'github-slugger';
import { absoluteUrl } from '../runtime/site';

/** A tag's URL segment; tags that slug the same are one tag. */
export function tagSlug(name: string): string {
  return new GithubSlugger().slug(name) || 'tag';
}

/** The site's paths for posts and tags: the one place their URLs are spelled. */
export const contentPaths = {
  post: (slug: string) => `/blog/${slug}`,
  postMarkdown: (slug: string) => `/blog/${slug}.md`,
  tag: (slug: string) => `/tags/${slug}`,
  tagMarkdown: (slug: string) => `/tags/${slug}.md`,
  tagRss: (slug: string) => `/tags/${slug}/rss.xml`,
};

/** Absolute URLs of the same, and of the site-wide feeds. */
export const urls = {
  post: (slug: string) => absoluteUrl(contentPaths.post(slug)),
  postMarkdown: (slug: string) => absoluteUrl(contentPaths.postMarkdown(slug)),
  tag: (name: string) => absoluteUrl(contentPaths.tag(tagSlug(name))),
  tagRss: (name: string) => absoluteUrl(contentPaths.tagRss(tagSlug(name))),
  rss: () => absoluteUrl('/api/rss'),
  atom: () => absoluteUrl('/atom.xml'),
  jsonFeed: () => absoluteUrl('/feed.json'),
};
