import path from 'node:path';
import { z } from 'zod';

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
});

export type Config = { siteUrl: string; contentDir: string; publishedBefore: number; postsPerPage: number };

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
  };
  return cached;
}

/** An absolute URL on this site for a root-relative path. */
export function absoluteUrl(pathname: string): string {
  return `${config().siteUrl}${pathname.startsWith('/') ? pathname : `/${pathname}`}`;
}
