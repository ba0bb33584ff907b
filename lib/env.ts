import { z } from 'zod';

/**
 * Every environment variable lectern reads, validated in one place. `.env.example`
 * lists the same variables with their defaults; an empty value counts as unset.
 * Nothing else in lib/, app/, components/, proxy.ts, server.ts, instrumentation.ts
 * or scripts/ reads `process.env`: they ask `env()` (or pass a record of their own
 * to `parseEnv`, in tests).
 */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const hops = 'must be a whole number of proxy hops (0 or more)';
const port = 'must be a port number (0 to 65535)';
const whole = (unit: string) => z.coerce.number({ error: `must be a whole number of ${unit}` }).int(`must be a whole number of ${unit}`);
const flag = (meaning: string) =>
  z
    .enum(['1', 'true', '0', 'false'], { error: `must be 1 (or true) ${meaning}, 0 (or false) otherwise` })
    .transform((value) => value === '1' || value === 'true');

/** How many of the newest posts a build generates when PRERENDER_POSTS is not set (README, "Large sites"). */
export const DEFAULT_PRERENDER_POSTS = 100;

export const INDEXNOW_KEY_PATTERN = /^[A-Za-z0-9-]{8,128}$/;

const envSchema = z.object({
  // --- The site
  /** The public base URL; every absolute link uses it (no trailing slash kept). */
  SITE_URL: z
    .url({ protocol: /^https?$/, error: 'SITE_URL must be an absolute http(s) URL such as https://example.com' })
    .default('http://localhost:3000')
    .transform((url) => url.replace(/\/+$/, '')),
  /** The content folder to build. */
  CONTENT_DIR: z.string().default('content'),
  /** Posts on /blog and on each tag page. */
  POSTS_PER_PAGE: z
    .string()
    .regex(/^[1-9][0-9]{0,3}$/, { error: 'POSTS_PER_PAGE must be a whole number from 1 to 9999' })
    .default('20')
    .transform(Number),
  /** How many of the newest posts a build generates; older ones are generated on their first request and kept. */
  PRERENDER_POSTS: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,6})$/, { error: 'PRERENDER_POSTS must be a whole number from 0 to 9999999' })
    .default(String(DEFAULT_PRERENDER_POSTS))
    .transform(Number),
  /** How many workers generate the static pages at build (read by next.config.ts); one per CPU when unset. One keeps a 10,000-post build under 2 GiB. */
  BUILD_WORKERS: z
    .string()
    .regex(/^[1-9][0-9]?$/, { error: 'BUILD_WORKERS must be a whole number from 1 to 99' })
    .transform(Number)
    .optional(),
  /** lectern's server generates the posts a build left to their first request, in the background after start. */
  PREWARM: flag('to generate older posts after start').default(true),
  /** Next's build folder (lets tests build a fixture site beside the real one); its cache/ survives rebuilds. */
  NEXT_DIST_DIR: z.string().default('.next'),
  /** A hash of the markdown renderer's code and packages; next.config inlines it into the build (render cache keys). */
  LECTERN_RENDERER_VERSION: z.string().optional(),
  /** "Now" for deciding which posts are published, in epoch ms; next.config inlines it into the build. */
  LECTERN_BUILD_TIME: whole('milliseconds since 1970').positive('must be more than 0').optional(),
  /**
   * Tests only: milliseconds added to the system clock wherever lectern asks what time it is
   * (lib/clock.ts), so a test can stand a few seconds before a fixture post's date.
   */
  LECTERN_CLOCK_OFFSET_MS: whole('milliseconds').default(0),
  /**
   * Bearer token of /api/publish, which makes posts that reached their time live where lectern's
   * server does not run (a platform's cron job calls it; Vercel sends this variable's value).
   */
  CRON_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),

  // --- The server
  /** The port lectern's server listens on. */
  PORT: z.coerce.number({ error: port }).int(port).min(0, port).max(65535, port).default(3000),
  /** The address lectern's server listens on. */
  HOSTNAME: z.string().default('0.0.0.0'),
  /** On SIGTERM or SIGINT, how long requests in flight may take to finish before their connections are closed. */
  SHUTDOWN_GRACE_MS: whole('milliseconds').positive('must be more than 0').max(600_000, 'must be at most 600000').default(10_000),
  /** Proxy hops in front whose X-Forwarded-For / X-Forwarded-Proto entries are believed. */
  TRUST_PROXY: z.coerce.number({ error: hops }).int(hops).min(0, hops).default(0),
  /** A request header the platform's edge overwrites with the client's address, lower-cased. */
  CLIENT_IP_HEADER: z
    .string()
    .trim()
    .toLowerCase()
    .regex(HEADER_NAME, 'must be a header name, such as x-real-ip')
    .refine((name) => !name.startsWith('x-lectern-'), "must be a header your platform sets, not one of lectern's own")
    .optional(),
  /** Next.js runs without lectern's server, on a host that keeps no disk between requests. */
  PLATFORM_MODE: flag("to run without lectern's server").default(false),
  /** Where the embedded store (lectern.db) and the mail outbox folder live. */
  DATA_DIR: z.string().default('.data'),

  // --- Redis: shared rate limits and store
  /** A Redis server; unset: limits in memory, store in SQLite. */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'REDIS_URL must be a redis:// or rediss:// URL' }).optional(),
  /** Upstash instead of a Redis server: its REST URL (both or neither of the pair). */
  UPSTASH_REDIS_REST_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
  /** Upstash's REST token (both or neither of the pair). */
  UPSTASH_REDIS_REST_TOKEN: z.string().optional(),
  /** Scales every window of the limits table; for tests that cannot wait ten minutes. */
  RATE_LIMIT_WINDOW_SCALE: z.coerce
    .number({ error: 'must be a number more than 0 and at most 1' })
    .positive('must be more than 0')
    .max(1, 'must be at most 1')
    .default(1),
  /** How long a limit decision may wait for Redis before memory decides. */
  RATE_LIMIT_REDIS_TIMEOUT_MS: whole('milliseconds').positive('must be more than 0').max(5000, 'must be at most 5000').default(250),

  // --- Mail
  /** Send mail by SMTP; unset: each message is an .eml file in the outbox folder. */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  /** The outbox folder when SMTP_URL is unset; default DATA_DIR/outbox. */
  MAIL_OUTBOX_DIR: z.string().optional(),
  /** The sender of every message: an address, or `Name <address>`. */
  MAIL_FROM: z.string().trim().optional(),
  /** Where support messages go. */
  SUPPORT_EMAIL: z.string().trim().optional(),
  /** How often the outbox is checked. */
  MAIL_POLL_MS: whole('milliseconds').positive('must be more than 0').default(5000),
  /** The first retry delay; it doubles on each failure, up to 30 minutes. */
  MAIL_RETRY_BASE_MS: whole('milliseconds').positive('must be more than 0').default(5000),
  /** How long sent mail (bodies with their links) is kept; 0 deletes it once sent. */
  MAIL_RETENTION_DAYS: whole('days').min(0, 'must be 0 or more').max(3650, 'must be at most 3650').default(30),
  /** The newsletter's limit in messages per second (a mail provider's limit); 0: as fast as the server takes them. */
  NEWSLETTER_RATE: z.coerce
    .number({ error: 'must be a number of messages per second' })
    .min(0, 'must be 0 or more')
    .max(10000, 'must be at most 10000')
    .default(10),
  /** How long a claimed newsletter message is held by its sender: after a crash, another sender takes it once this has passed. */
  NEWSLETTER_LEASE_SECONDS: whole('seconds').min(5, 'must be at least 5').max(3600, 'must be at most 3600').default(120),
  /** How often the newsletter looks for newly published posts and due messages. */
  NEWSLETTER_CHECK_MS: whole('milliseconds').positive('must be more than 0').default(5000),
  /** In platform mode: the messages one batch of a cron call claims at most. */
  NEWSLETTER_BATCH_SIZE: whole('messages').min(1, 'must be at least 1').max(10000, 'must be at most 10000').default(100),
  /** In platform mode: how long one cron call goes on sending, under the platform's limit on a function (the route asks for 60 s). */
  NEWSLETTER_BUDGET_SECONDS: whole('seconds').min(1, 'must be at least 1').max(800, 'must be at most 800').default(40),

  // --- Payments (Stripe)
  /** Stripe's secret API key; without it checkouts answer 503. */
  STRIPE_SECRET_KEY: z.string().optional(),
  /** The secret Stripe signs webhook events with. */
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  /** Another Stripe API base URL (tests point it at a local recorder). */
  STRIPE_API_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),

  // --- IndexNow
  /** Bearer token of /api/index-notify. */
  INDEX_NOTIFY_TOKEN: z.string().optional(),
  /** The key served as /{INDEXNOW_KEY}.txt; with INDEX_NOTIFY_TOKEN it enables /api/index-notify. */
  INDEXNOW_KEY: z.string().regex(INDEXNOW_KEY_PATTERN, 'must be 8 to 128 letters, digits or dashes').optional(),
  /** Where URLs are submitted. */
  INDEXNOW_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://api.indexnow.org/indexnow'),

  // --- Set by Node.js and Next.js
  /** nodejs or edge: which runtime is loading instrumentation.ts. */
  NEXT_RUNTIME: z.string().optional(),
  /** phase-production-build while `npm run build` runs. */
  NEXT_PHASE: z.string().optional(),
});

export type Env = z.output<typeof envSchema>;
export type EnvSource = Record<string, string | undefined>;

/** One error naming every bad value, one per line. */
export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

/** Parses a set of variables (empty values count as unset); every bad value is named in one error. */
export function parseEnv(source: EnvSource): Env {
  const given = Object.fromEntries(Object.keys(envSchema.shape).flatMap((key) => (source[key] ? [[key, source[key]]] : [])));
  const parsed = envSchema.safeParse(given);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  if (Boolean(given.UPSTASH_REDIS_REST_URL) !== Boolean(given.UPSTASH_REDIS_REST_TOKEN))
    problems.push('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together');
  if (problems.length > 0 || !parsed.success) throw new InvalidEnvironmentError(problems);
  return parsed.data;
}

let cached: Env | undefined;

/**
 * The process's environment, parsed on first use. LECTERN_BUILD_TIME and
 * LECTERN_RENDERER_VERSION are read by name: Next.js inlines those reads into what it builds.
 */
export function env(): Env {
  cached ??= parseEnv({ ...process.env, LECTERN_BUILD_TIME: process.env.LECTERN_BUILD_TIME, LECTERN_RENDERER_VERSION: process.env.LECTERN_RENDERER_VERSION });
  return cached;
}

/**
 * NODE_ENV (development under `npm run dev`, production under `npm run build`
 * and `npm start`) as it is now: lectern's server parses the settings before
 * Next.js sets it, so it is read afresh each time, not kept by `env()`. Next.js
 * inlines this read into what it builds.
 */
export function nodeEnv(): string | undefined {
  return process.env.NODE_ENV;
}

/**
 * For the start of a process: parses the environment, or prints every bad value
 * and ends the process with status 1.
 */
export function envOrExit(exit: (code: number) => never = process.exit, log: Pick<Console, 'error'> = console): Env {
  try {
    return env();
  } catch (error) {
    if (!(error instanceof InvalidEnvironmentError)) throw error;
    log.error(error.message);
    return exit(1);
  }
}
