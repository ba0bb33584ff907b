import path from 'node:path';
import { env } from './env';

export type Config = {
  siteUrl: string;
  contentDir: string;
  publishedBefore: number;
  postsPerPage: number;
  /** The newest posts generated at build; older ones are generated on their first request and kept. */
  prerenderPosts: number;
  /** lectern's server generates the posts the build left (past prerenderPosts) in the background after start. */
  prewarm: boolean;
  /** Next's build folder, relative to the working directory: its `cache/` survives rebuilds. */
  distDir: string;
  /** A hash of the markdown renderer's code and packages, inlined by next.config: part of every render cache key. Unset outside Next's bundles (tests, scripts): nothing is kept then. */
  rendererVersion: string | undefined;
};

let cached: Config | undefined;

/**
 * Site facts that come from the environment (lib/env.ts).
 * `LECTERN_BUILD_TIME` is inlined by next.config at build: the moment every build
 * worker judges "published" by, and the Last-Modified of what has no date of its
 * own. A running site judges it by the clock (lib/clock.ts, lib/publishing).
 */
export function config(): Config {
  if (cached) return cached;
  const settings = env();
  cached = {
    siteUrl: settings.SITE_URL,
    contentDir: path.resolve(settings.CONTENT_DIR),
    publishedBefore: settings.LECTERN_BUILD_TIME ?? Date.now(),
    postsPerPage: settings.POSTS_PER_PAGE,
    prerenderPosts: settings.PRERENDER_POSTS,
    prewarm: settings.PREWARM,
    distDir: settings.NEXT_DIST_DIR,
    rendererVersion: settings.LECTERN_RENDERER_VERSION,
  };
  return cached;
}

/** An absolute URL on this site for a root-relative path. */
export function absoluteUrl(pathname: string): string {
  return `${config().siteUrl}${pathname.startsWith('/') ? pathname : `/${pathname}`}`;
}
