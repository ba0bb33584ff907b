import { newestChange } from './dates';
import { prerenderedPosts, publishedPosts, staticParams, tags, type Post } from './index';
import { laterPageNumbers } from './pagination';

/**
 * What routes ask of the content besides the posts themselves: the values of
 * their dynamic segments, when the content last changed, the latest posts.
 * Each list of params is empty in development (see `staticParams`).
 */

/**
 * `/blog/[slug]` and the routes below it: one entry per post the build generates, the newest
 * PRERENDER_POSTS; the others are generated on their first request (see `prerenderedPosts`).
 */
export function postParams(): { slug: string }[] {
  return staticParams(() => prerenderedPosts().map(({ slug }) => ({ slug })));
}

/** `/tags/[tag]` and the routes below it: one entry per tag. */
export function tagParams(): { tag: string }[] {
  return staticParams(() => tags().map(({ slug }) => ({ tag: slug })));
}

/** `/blog/page/[page]`: the later pages of the blog, 2 to the last. */
export function blogPageParams(): { page: string }[] {
  return staticParams(() => laterPageNumbers(publishedPosts().length).map((number) => ({ page: String(number) })));
}

/** `/tags/[tag]/page/[page]`: the later pages of every tag. */
export function tagPageParams(): { tag: string; page: string }[] {
  return staticParams(() => tags().flatMap((tag) => laterPageNumbers(tag.posts.length).map((number) => ({ tag: tag.slug, page: String(number) }))));
}

/** When a list last changed: the newest `updated` or `date` among its posts (every published post by default), or undefined for none. */
export function lastModified(posts: readonly Post[] = publishedPosts()): number | undefined {
  return newestChange(posts);
}

/** The `count` newest published posts. */
export function latestPosts(count: number): readonly Post[] {
  return publishedPosts().slice(0, count);
}
