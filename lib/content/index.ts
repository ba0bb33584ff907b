import GithubSlugger from 'github-slugger';
import { absoluteUrl, config } from '../config';
import { isPublished, loadContent, newestFirst, type App, type Content, type Post, type Product } from './load';

export type { App, Post, Product } from './load';
export { ContentError } from './load';

let cache: { content: Content; published: Post[]; bySlug: Map<string, Post> } | undefined;

function state() {
  if (!cache) {
    const { contentDir, publishedBefore } = config();
    const content = loadContent(contentDir);
    const published = content.posts.filter((post) => isPublished(post, publishedBefore)).sort(newestFirst);
    cache = { content, published, bySlug: new Map(published.map((post) => [post.slug, post])) };
  }
  return cache;
}

/**
 * THE list of posts: published only, newest first. Every output takes its
 * posts from here; nothing else filters drafts or future posts.
 */
export function publishedPosts(): readonly Post[] {
  return state().published;
}

/** A published post by slug, or undefined. Never touches the file system with the slug. */
export function publishedPost(slug: string): Post | undefined {
  return state().bySlug.get(slug);
}

export function site() {
  return state().content.site;
}

export function homePage() {
  return state().content.home;
}

export function apps(): readonly App[] {
  return state().content.apps;
}

export function app(slug: string): App | undefined {
  return state().content.apps.find((entry) => entry.slug === slug);
}

export function products(): readonly Product[] {
  return state().content.products;
}

export type Tag = { name: string; slug: string; posts: Post[] };

/** Tags of published posts, by URL slug; tags that slug the same are one tag. */
export function tags(): Tag[] {
  const bySlug = new Map<string, Tag>();
  for (const post of publishedPosts()) {
    for (const name of post.tags) {
      const slug = tagSlug(name);
      const tag = bySlug.get(slug) ?? { name, slug, posts: [] };
      if (!tag.posts.includes(post)) tag.posts.push(post);
      bySlug.set(slug, tag);
    }
  }
  return [...bySlug.values()].sort((a, b) => b.posts.length - a.posts.length || a.slug.localeCompare(b.slug));
}

export function tagSlug(name: string): string {
  return new GithubSlugger().slug(name) || 'tag';
}

export const urls = {
  post: (slug: string) => absoluteUrl(`/blog/${slug}`),
  postMarkdown: (slug: string) => absoluteUrl(`/blog/${slug}.md`),
  tag: (name: string) => absoluteUrl(`/tags/${tagSlug(name)}`),
  rss: () => absoluteUrl('/api/rss'),
};
