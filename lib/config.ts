import path from 'node:path';
import { z } from 'zod';

/** How many of the newest posts a build generates when PRERENDER_POSTS is not set (README, "Large sites"). */
export const DEFAULT_PRERENDER_POSTS = 100;

const envSchema = z.object({
  SITE_URL: z
    .url({ protocol: /^https?$/, error: 'SITE_URL must be an absolute http(s) URL such as https://example.com' })
    .default('http://localhost:3000')
    .transform((url) => url.replace(/\/+$/, '')),
  CONTENT_DIR: z.string().min(1).default('content'),
  POSTS_PER_PAGE: z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/, { error: 'POSTS_PER_PAGE must be a whole number from 1 to 9999' })
    .default('20')
    .transform(Number),
  PRERENDER_POSTS: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,6})$/, { error: 'PRERENDER_POSTS must be a whole number from 0 to 9999999' })
    .default(String(DEFAULT_PRERENDER_POSTS))
    .transform(Number),
  PREWARM: z.enum(['0', '1'], { error: 'PREWARM must be 1 (generate older posts after start) or 0' }).default('1'),
});

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
 * Site facts that come from the environment, validated once.
 * `LECTERN_BUILD_TIME` is inlined by next.config at build, so "published" means
 * "not in the future when the site was built" in every route, static or not.
 */
export function config(): Config {
  if (cached) return cached;
  const parsed = envSchema.safeParse({
    SITE_URL: process.env.SITE_URL || undefined,
    CONTENT_DIR: process.env.CONTENT_DIR || undefined,
    POSTS_PER_PAGE: process.env.POSTS_PER_PAGE || undefined,
    PRERENDER_POSTS: process.env.PRERENDER_POSTS || undefined,
    PREWARM: process.env.PREWARM || undefined,
  });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  const buildTime = Number(process.env.LECTERN_BUILD_TIME);
  cached = {
    siteUrl: parsed.data.SITE_URL,
    contentDir: path.resolve(parsed.data.CONTENT_DIR),
    publishedBefore: Number.isFinite(buildTime) && buildTime > 0 ? buildTime : Date.now(),
    postsPerPage: parsed.data.POSTS_PER_PAGE,
    prerenderPosts: parsed.data.PRERENDER_POSTS,
    prewarm: parsed.data.PREWARM === '1',
    distDir: process.env.NEXT_DIST_DIR || '.next',
    rendererVersion: process.env.LECTERN_RENDERER_VERSION || undefined,
  };
  return cached;
}

/** An absolute URL on this site for a root-relative path. */
export function absoluteUrl(pathname: string): string {
  return `${config().siteUrl}${pathname.startsWith('/') ? pathname : `/${pathname}`}`;
}
