import type { Clock } from '../clock';
import { nodeEnv } from '../settings';
import { contentFingerprint } from './fingerprint';
import { ContentError, isPublished, loadContent, newestFirst, type App, type Content, type Post as LoadedPost, type Product } from './load';
import { aheadCount, type BuildRecord } from './published-set';
import { contentPaths, tagSlug, urls } from './urls';

/**
 * `npm run dev`: the content folder is looked at on every call and reread when
 * it changed, and drafts and future posts are listed too, marked. Next's
 * development server loads this module once per module graph (pages, route
 * handlers), so the check is made per call rather than by a watcher in one of them.
 */
// Read on each use: lectern's server loads this module (for its prewarm) before Next sets NODE_ENV.
const isLive = () => nodeEnv() === 'development';

export type Post = LoadedPost & {
  /** False only in development, for a draft or a post dated in the future; a production build never lists one. */
  published: boolean;
  /** The page's path, for links inside the site: `/blog/{slug}`. */
  path: string;
  /** The page's absolute URL. */
  url: string;
  /** The absolute URL of its markdown: `/blog/{slug}.md`. */
  markdownUrl: string;
};

export type Tag = {
  name: string;
  slug: string;
  /** The tag page's path: `/tags/{slug}`. */
  path: string;
  posts: Post[];
};

type State = {
  content: Content;
  /** Every post the site holds, newest first: published and dated ahead (in development, drafts too). */
  posts: Post[];
  bySlug: Map<string, Post>;
  /** Their dates, in the same order. */
  dates: number[];
  /** The posts live at the last `now` asked, and how many posts were still ahead of it. */
  view?: { ahead: number; posts: Post[] };
};
type Loaded = { fingerprint?: string } & ({ state: State; error?: undefined } | { state?: undefined; error: unknown });

/** What the site's content is made from: its settings groups (site, build, publishing), as the runtime reads them. */
export type SiteContentOptions = {
  /** The content folder, absolute. */
  contentDir: string;
  /** How many of the newest posts a build generates (PRERENDER_POSTS). */
  prerenderPosts: number;
  /** The build's "now" (LECTERN_BUILD_TIME): what is live while the build runs, the same in every worker. */
  buildTime: number;
  /** What is live once the site runs is judged by this clock. */
  clock: Clock;
  /** The build's list of posts: written by a build, read by the started site. */
  buildRecord: BuildRecord;
};

/** The site's content (lib/content/index.ts serves the process's one): its posts, tags, apps, products and facts. */
export type SiteContent = ReturnType<typeof createSiteContent>;

export function createSiteContent({ contentDir, prerenderPosts, buildTime, clock, buildRecord }: SiteContentOptions) {
  const { building, builtSlugs, recordPublishedSet } = buildRecord;
  let cache: Loaded | undefined;
  let lookedThisTurn = false;

  /** "Now" for deciding what is live: the build's moment while it builds (the same in every worker), else the clock. */
  function now(): number {
    return building() ? buildTime : clock();
  }

  function build(): State {
    const content = loadContent(contentDir);
    // In development "published" is judged now, for the marks; the list keeps every post.
    const builtSet = isLive() ? undefined : builtSlugs();
    const posts = content.posts
      .map((post) => ({
        ...post,
        published: !isLive() || isPublished(post, Date.now()),
        path: contentPaths.post(post.slug),
        url: urls.post(post.slug),
        markdownUrl: urls.postMarkdown(post.slug),
      }))
      .filter((post) => isLive() || (!post.draft && (!builtSet || builtSet.has(post.slug))))
      .sort(newestFirst);
    return { content, posts, bySlug: new Map(posts.map((post) => [post.slug, post])), dates: posts.map((post) => post.dateMillis) };
  }

  function load(fingerprint: string | undefined): Loaded {
    try {
      return { fingerprint, state: build() };
    } catch (error) {
      if (!isLive()) throw error;
      // Kept until the folder changes again, so a broken file is not reread on every call.
      return { fingerprint, error };
    }
  }

  function state(): State {
    if (isLive()) {
      // One look at the folder per synchronous stretch: a page asking for posts, tags and site
      // facts at once stats the files once; any later request looks again.
      if (!lookedThisTurn || !cache) {
        lookedThisTurn = true;
        queueMicrotask(() => (lookedThisTurn = false));
        const fingerprint = contentFingerprint(contentDir);
        if (cache?.fingerprint !== fingerprint) cache = load(fingerprint);
      }
    } else {
      cache ??= load(undefined);
    }
    if (!cache.state) throw cache.error;
    return cache.state;
  }

  /**
   * THE list of posts: published only, newest first. Every output takes its
   * posts from here; nothing else filters drafts or future posts. "Published" is
   * judged at `at` (now by default): a post dated ahead joins the list at its
   * time, not a millisecond before. The array is the same object until a post
   * comes due, so whatever is derived from it (tags, the search index) is made
   * once per change. In development it also lists drafts and future posts, with
   * `published: false`, so the author sees them where they will appear.
   */
  function publishedPosts(at: number = now()): readonly Post[] {
    const current = state();
    if (isLive()) return current.posts;
    const ahead = aheadCount(current.dates, at);
    if (current.view?.ahead !== ahead) current.view = { ahead, posts: current.posts.slice(ahead) };
    return current.view.posts;
  }

  /**
   * Every post the site holds that is not a draft, newest first: the published ones and those
   * dated ahead. Only what must exist before a post goes live asks for them: the values of the
   * dynamic segments a build generates (a tag or a page that only a post dated ahead fills is
   * generated as a 404, and made again when the post goes live).
   */
  function builtPosts(): readonly Post[] {
    return isLive() ? state().posts.filter((post) => !post.draft) : state().posts;
  }

  /**
   * The posts a build generates: the newest PRERENDER_POSTS. The others are generated on their
   * first request, from the same code, and kept for the life of the build.
   */
  function prerenderedPosts(): readonly Post[] {
    return publishedPosts().slice(0, prerenderPosts);
  }

  function apps(): readonly App[] {
    return state().content.apps;
  }

  /** Tags of published posts, by URL slug; tags that slug the same are one tag. */
  function tags(): Tag[] {
    return tagsOfPosts(publishedPosts());
  }

  return {
    publishedPosts,
    builtPosts,
    prerenderedPosts,
    apps,
    tags,

    /** In development, the ContentError of the content folder as it is now (undefined when it loads). */
    contentError(): ContentError | undefined {
      try {
        state();
        return undefined;
      } catch (error) {
        if (error instanceof ContentError) return error;
        throw error;
      }
    },

    /**
     * What a dynamic route's generateStaticParams returns: `params()` for a build,
     * nothing in development. Next's development server keeps a route's last list
     * and answers 404 (with dynamicParams false) to a value missing from it until a
     * later request has refreshed it, so a new post or tag would be missing on its
     * first request; with no list, every value is rendered on request, and the
     * route's own lookup answers 404 for one that does not exist.
     */
    staticParams<T>(params: () => T[]): T[] {
      if (isLive()) return [];
      recordPublishedSet(() => {
        const posts = state().posts;
        return {
          slugs: posts.map((post) => post.slug),
          dates: posts.map((post) => post.dateMillis),
          builtAt: now(),
          prerendered: prerenderedPosts().length,
          // The pages and tags a post fills are counted from the posts live at each moment (liveView).
          postTags: posts.map((post) => [...new Set(post.tags.map(tagSlug))]),
          apps: apps().map((entry) => entry.slug),
        };
      });
      return params();
    },

    /** A published post by slug (in development, any post), or undefined. Never touches the file system with the slug. */
    publishedPost(slug: string): Post | undefined {
      const post = state().bySlug.get(slug);
      return post && (isLive() || post.dateMillis <= now()) ? post : undefined;
    },

    site() {
      return state().content.site;
    },

    /** The author's welcome mail (content/newsletter-welcome.md), if they wrote one. */
    welcomeContent() {
      return state().content.welcome;
    },

    homePage() {
      return state().content.home;
    },

    app(slug: string): App | undefined {
      return state().content.apps.find((entry) => entry.slug === slug);
    },

    products(): readonly Product[] {
      return state().content.products;
    },

    /** The tags of every post the site holds, those dated ahead included (see builtPosts). */
    builtTags(): Tag[] {
      return tagsOfPosts(builtPosts());
    },

    /** A tag of published posts by its URL slug, or undefined. */
    tagBySlug(slug: string): Tag | undefined {
      return tags().find((tag) => tag.slug === slug);
    },
  };
}

/** The tags of a list of posts, made once per list: every list and tag page asks for them. */
function tagsOfPosts(posts: readonly Post[]): Tag[] {
  let list = tagsOf.get(posts);
  if (!list) {
    const bySlug = new Map<string, Tag>();
    for (const post of posts) {
      // A post listing two tags that slug the same is in that tag once.
      for (const slug of new Set(post.tags.map(tagSlug))) {
        const tag = bySlug.get(slug) ?? { name: post.tags.find((name) => tagSlug(name) === slug) ?? slug, slug, path: contentPaths.tag(slug), posts: [] };
        tag.posts.push(post);
        bySlug.set(slug, tag);
      }
    }
    list = [...bySlug.values()].sort((a, b) => b.posts.length - a.posts.length || a.slug.localeCompare(b.slug));
    tagsOf.set(posts, list);
  }
  return [...list];
}

const tagsOf = new WeakMap<readonly Post[], Tag[]>();
