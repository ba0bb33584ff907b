import path from 'node:path';
import { env } from './env';

export type Config = { siteUrl: string; contentDir: string; publishedBefore: number; postsPerPage: number };

let cached: Config | undefined;

/**
 * Site facts that come from the environment (lib/env.ts).
 * `LECTERN_BUILD_TIME` is inlined by next.config at build, so "published" means
 * "not in the future when the site was built" in every route, static or not.
 */
export function config(): Config {
  if (cached) return cached;
  const settings = env();
  cached = {
    siteUrl: settings.SITE_URL,
    contentDir: path.resolve(settings.CONTENT_DIR),
    publishedBefore: settings.LECTERN_BUILD_TIME ?? Date.now(),
    postsPerPage: settings.POSTS_PER_PAGE,
  };
  return cached;
}

/** An absolute URL on this site for a root-relative path. */
export function absoluteUrl(pathname: string): string {
  return `${config().siteUrl}${pathname.startsWith('/') ? pathname : `/${pathname}`}`;
}
