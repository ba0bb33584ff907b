import { newestChange } from './dates';
import { builtPosts, builtTags, prerenderedPosts, publishedPosts, staticParams, tagBySlug, type Post, type Tag } from './index';
import { laterPageNumbers } from './pagination';

/**
 * What routes ask of the content besides the posts themselves: the values of
 * their dynamic segments, when the content last changed, the latest posts.
 * Each list of params is empty in development (see `staticParams`). Tags and
 * pages are listed for every post the build holds, those dated ahead included:
 * their routes take no other values, so a tag or page that only a post dated
 * ahead fills is generated now (a 404 until then) and made again when it goes live.
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
  return staticParams(() => builtTags().map(({ slug }) => ({ tag: slug })));
}

/**
 * The GET of a file below `/tags/[tag]` (its markdown, its feed): `found` answers a tag of a live
 * post, `missing` any other value of the segment.
 */
export function tagFileGet(found: (tag: Tag) => Response | Promise<Response>, missing: (slug: string) => Response) {
  return async (_request: Request, { params }: { params: Promise<{ tag: string }> }): Promise<Response> => {
    const { tag: slug } = await params;
    const tag = tagBySlug(slug);
    return tag ? found(tag) : missing(slug);
  };
}

/** `/blog/page/[page]`: the later pages of the blog, 2 to the last, `perPage` posts a page. */
export function blogPageParams(perPage: number): { page: string }[] {
  return staticParams(() => laterPageNumbers(builtPosts().length, perPage).map((number) => ({ page: String(number) })));
}

/** `/tags/[tag]/page/[page]`: the later pages of every tag, `perPage` posts a page. */
export function tagPageParams(perPage: number): { tag: string; page: string }[] {
  return staticParams(() =>
    builtTags().flatMap((tag) => laterPageNumbers(tag.posts.length, perPage).map((number) => ({ tag: tag.slug, page: String(number) }))),
  );
}

/** When a list last changed: the newest `updated` or `date` among its posts (every published post by default), or undefined for none. */
export function lastModified(posts: readonly Post[] = publishedPosts()): number | undefined {
  return newestChange(posts);
}

/** The `count` newest published posts. */
export function latestPosts(count: number): readonly Post[] {
  return publishedPosts().slice(0, count);
}
