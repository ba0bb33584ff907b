import type { ContentError, App, Product } from './load';
import { siteContent } from '../runtime/content';
import type { Post, Tag } from './site-content';

export type { App, Product } from './load';
export { ContentError } from './load';
export type { Post, Tag } from './site-content';
export { contentPaths, tagSlug, urls } from './urls';

/*
 * The content this process serves (lib/content/site-content.ts holds what each call does; the
 * runtime makes it from the settings, lib/runtime/content.ts). Every page, feed and file asks here.
 */

/** In development, the ContentError of the content folder as it is now (undefined when it loads). */
export function contentError(): ContentError | undefined {
  return siteContent().contentError();
}

/** What a dynamic route's generateStaticParams returns: `params()` for a build, nothing in development. */
export function staticParams<T>(params: () => T[]): T[] {
  return siteContent().staticParams(params);
}

/** Every post the site holds that is not a draft, newest first: the published ones and those dated ahead. */
export function builtPosts(): readonly Post[] {
  return siteContent().builtPosts();
}

/** The posts a build generates: the newest PRERENDER_POSTS. */
export function prerenderedPosts(): readonly Post[] {
  return siteContent().prerenderedPosts();
}

/** THE list of posts: published at `at` (now by default) only, newest first; every output takes its posts from here. */
export function publishedPosts(at?: number): readonly Post[] {
  return siteContent().publishedPosts(at);
}

/** A published post by slug (in development, any post), or undefined. Never touches the file system with the slug. */
export function publishedPost(slug: string): Post | undefined {
  return siteContent().publishedPost(slug);
}

export function site() {
  return siteContent().site();
}

/** The author's welcome mail (content/newsletter-welcome.md), if they wrote one. */
export function welcomeContent() {
  return siteContent().welcomeContent();
}

export function homePage() {
  return siteContent().homePage();
}

export function apps(): readonly App[] {
  return siteContent().apps();
}

export function app(slug: string): App | undefined {
  return siteContent().app(slug);
}

export function products(): readonly Product[] {
  return siteContent().products();
}

/** Tags of published posts, by URL slug; tags that slug the same are one tag. */
export function tags(): Tag[] {
  return siteContent().tags();
}

/** The tags of every post the site holds, those dated ahead included (see builtPosts). */
export function builtTags(): Tag[] {
  return siteContent().builtTags();
}

/** A tag of published posts by its URL slug, or undefined. */
export function tagBySlug(slug: string): Tag | undefined {
  return siteContent().tagBySlug(slug);
}
