import path from 'node:path';
import { z } from 'zod';
import { verifiedAgentLimit } from './routes/manifest';

/**
 * lectern's settings: every environment variable it reads, validated in one place
 * and parsed once into one object grouped by concern (`Settings`). `.env.example`
 * lists the same variables with their defaults; an empty value counts as unset.
 * Nothing else in lib/, app/, components/, proxy.ts, server.ts, instrumentation.ts,
 * next.config.ts or scripts/ reads `process.env`. The entry points and lib/runtime/ ask
 * `settings()` and hand each part of lib/ the groups it uses (tests pass a record of their
 * own to `parseSettings`).
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

/** How long one activity's send waits for a follower's server by default (FEDIVERSE_SEND_TIMEOUT_SECONDS), as Mastodon's own read deadline. */
export const DEFAULT_FEDIVERSE_SEND_TIMEOUT_SECONDS = 30;

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
  /** How long a client may take to send a request's headers before its connection is closed (README, "Slow and idle clients"). */
  HEADERS_TIMEOUT_MS: whole('milliseconds').min(1000, 'must be at least 1000').max(600_000, 'must be at most 600000').default(10_000),
  /** How long a client may take to send a whole request (headers and body) before its connection is closed. */
  REQUEST_TIMEOUT_MS: whole('milliseconds').min(1000, 'must be at least 1000').max(600_000, 'must be at most 600000').default(30_000),
  /** How long an idle kept-alive connection stays open waiting for the client's next request. */
  KEEP_ALIVE_TIMEOUT_MS: whole('milliseconds').min(1000, 'must be at least 1000').max(600_000, 'must be at most 600000').default(5_000),
  /** Connections open at once at most; past it a new one is closed at once. */
  MAX_CONNECTIONS: whole('connections').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000').default(4_096),
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
  /** Training-only crawlers (lib/agents/terms.ts) get 403 on everything but robots.txt, the licence and llms.txt. */
  REFUSE_TRAINING_CRAWLERS: flag('to refuse training crawlers with 403').default(true),
  /** Requests a minute one verified agent (Web Bot Auth) may send to /mcp and to /api/search (lib/limits/table.ts). */
  VERIFIED_AGENT_BUDGET: whole('requests a minute').min(1, 'must be at least 1 request a minute').default(verifiedAgentLimit.requests),
  /**
   * Tests only: Web Bot Auth key directories may be fetched over plain HTTP and from loopback
   * addresses (a test serves its agent's directory on 127.0.0.1). Otherwise only HTTPS from public addresses.
   */
  WEB_BOT_AUTH_LOOPBACK_DIRECTORIES: flag('to fetch agent key directories from loopback over HTTP (tests)').default(false),
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
  /** How long a form mail that fails temporarily is tried again before it counts as failed. */
  MAIL_RETRY_DAYS: whole('days').min(1, 'must be at least 1').max(30, 'must be at most 30').default(3),
  /** The bounce address: every message's envelope sender is `<local>+<token>@<domain>` of it (VERP). */
  BOUNCE_ADDRESS: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._-]{1,20}@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/, 'must be an address such as bounces@example.com (at most 20 characters before the @, no +)')
    .optional(),
  /** Soft bounces (4.x.x) that suspend an address, within SOFT_BOUNCE_WINDOW_DAYS. */
  SOFT_BOUNCE_LIMIT: whole('bounces').min(1, 'must be at least 1').max(100, 'must be at most 100').default(3),
  SOFT_BOUNCE_WINDOW_DAYS: whole('days').min(1, 'must be at least 1').max(365, 'must be at most 365').default(30),
  /** lectern's own inbound SMTP listener for bounces and reports; unset: off. */
  BOUNCE_SMTP_PORT: z.coerce.number({ error: port }).int(port).min(0, port).max(65535, port).optional(),
  BOUNCE_SMTP_HOST: z.string().default('127.0.0.1'),
  /** The most DATA_DIR/bounces-kept may hold; past it a message the listener would keep is not kept. */
  BOUNCES_KEPT_MAX_MB: whole('MiB').min(1, 'must be at least 1').max(100_000, 'must be at most 100000').default(100),
  /** An IMAP mailbox of bounces and reports to poll (imap[s]://user:password@host:port/Mailbox); unset: none. */
  BOUNCE_IMAP_URL: z.url({ protocol: /^imaps?$/, error: 'must be an imap:// or imaps:// URL' }).optional(),
  BOUNCE_IMAP_POLL_SECONDS: whole('seconds').min(5, 'must be at least 5').max(86400, 'must be at most 86400').default(60),
  /** The Basic credentials (`user:password`) Postmark's bounce and spam-complaint webhook sends; unset: the webhook answers 404. */
  POSTMARK_WEBHOOK_AUTH: z
    .string()
    .regex(/^[^:]+:.{16,}$/, 'must be user:password, the password at least 16 characters')
    .optional(),
  /** DKIM signing by lectern, for a relay that does not sign: all three or none. */
  DKIM_DOMAIN: z.string().trim().optional(),
  DKIM_SELECTOR: z.string().trim().optional(),
  /** The private key in PEM (\\n for line breaks is accepted). */
  DKIM_PRIVATE_KEY: z.string().optional(),
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

  // --- Downloads (what a buyer paid for)
  /** The key download links are signed with; unset: one derived from STRIPE_WEBHOOK_SECRET. */
  DOWNLOAD_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** How long a download link works after it is mailed. */
  DOWNLOAD_LINK_DAYS: whole('days').min(1, 'must be at least 1').max(3650, 'must be at most 3650').default(30),
  /** How many times each link downloads its file (a resumed download with Range is not counted). */
  DOWNLOAD_LIMIT: whole('downloads').min(1, 'must be at least 1').max(1000, 'must be at most 1000').default(5),
  /** Behind nginx: the internal location that serves the deliverables folder (X-Accel-Redirect); unset: lectern streams the file. */
  DOWNLOADS_ACCEL_PREFIX: z
    .string()
    .regex(/^\/[A-Za-z0-9_\-/]*\/$/, 'must be a path that starts and ends with /, such as /_deliverables/')
    .optional(),

  // --- Bookings (the training's sessions)
  /** How long before a session's first meeting its bookings get the reminder with the joining details. */
  BOOKING_REMINDER_HOURS: whole('hours').min(1, 'must be at least 1').max(720, 'must be at most 720').default(48),
  /** How often lectern's scheduler looks for due reminders. */
  BOOKING_REMINDER_CHECK_MS: whole('milliseconds').min(100, 'must be at least 100').default(60_000),

  // --- IndexNow
  /** Bearer token of /api/index-notify. */
  INDEX_NOTIFY_TOKEN: z.string().optional(),
  /** The key served as /{INDEXNOW_KEY}.txt; with INDEX_NOTIFY_TOKEN it enables /api/index-notify. */
  INDEXNOW_KEY: z.string().regex(INDEXNOW_KEY_PATTERN, 'must be 8 to 128 letters, digits or dashes').optional(),
  /** Where URLs are submitted. */
  INDEXNOW_ENDPOINT: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).default('https://api.indexnow.org/indexnow'),

  // --- The fediverse (README, "On the fediverse")
  /** Whether the site is on the fediverse; off (0), its URLs answer as any other page's and Fedify is never loaded. */
  FEDIVERSE: flag('to put the site on the fediverse').default(true),
  /** The site's account name on the fediverse: followed as @{handle}@{host of SITE_URL}. */
  FEDIVERSE_HANDLE: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,30}$/, 'must be 1 to 30 letters, digits or underscores, such as blog')
    .default('blog'),
  /**
   * Tests only: remote servers' actors, keys and inboxes may be on loopback and private addresses
   * (a test runs its own ActivityPub server on 127.0.0.1). Otherwise only public addresses.
   */
  FEDIVERSE_LOOPBACK: flag('to reach fediverse servers on loopback and private addresses (tests)').default(false),
  /**
   * How long the site waits on a follower's server for one activity it sends: past it, the send
   * counts as failed, and is tried again with backoff until the server is given up.
   */
  FEDIVERSE_SEND_TIMEOUT_SECONDS: whole('seconds').min(1, 'must be at least 1').max(300, 'must be at most 300').default(DEFAULT_FEDIVERSE_SEND_TIMEOUT_SECONDS),
  /**
   * Servers the site has nothing to do with, comma-separated (`spam.example, bad.example`): a domain
   * blocks its subdomains. Their inbox posts are refused (403) before any of their keys is fetched,
   * nothing is delivered to their followers and nothing of theirs is looked up.
   */
  FEDIVERSE_BLOCKED_DOMAINS: z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((domain) => domain.trim().toLowerCase().replace(/\.$/, ''))
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.string().regex(/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
          error: 'must be a comma-separated list of domain names such as spam.example, bad.example',
        }),
      ),
    )
    .default([]),

  // --- Set by Node.js and Next.js
  /** nodejs or edge: which runtime is loading instrumentation.ts. */
  NEXT_RUNTIME: z.string().optional(),
  /** phase-production-build while `npm run build` runs. */
  NEXT_PHASE: z.string().optional(),
});

type Env = z.output<typeof envSchema>;
export type EnvSource = Record<string, string | undefined>;

/** The settings, grouped by what they are about; each group is what one part of lectern is given. */
export type Settings = {
  /** The site as readers see it. */
  site: {
    /** The public base URL, no trailing slash (SITE_URL). */
    url: string;
    /** The content folder, absolute (CONTENT_DIR). */
    contentDir: string;
    /** Posts on /blog and on each tag page (POSTS_PER_PAGE). */
    postsPerPage: number;
  };
  /** What `npm run build` generates, and how. */
  build: {
    /** Whether this process is a build (NEXT_PHASE, set by Next.js). */
    running: boolean;
    /** Workers that generate the static pages (BUILD_WORKERS); undefined: one per CPU. */
    workers: number | undefined;
    /** The newest posts generated at build; older ones on their first request, then kept (PRERENDER_POSTS). */
    prerenderPosts: number;
    /** Next's build folder, relative to the working directory: its `cache/` survives rebuilds (NEXT_DIST_DIR). */
    distDir: string;
    /**
     * The build's "now" (LECTERN_BUILD_TIME, inlined by next.config): what the build lists is dated no
     * later, and it is the Last-Modified of what has no date of its own. Unset (outside a build's
     * bundles): the moment the settings were parsed. A running site judges what is live by its clock.
     */
    time: number;
    /** A hash of the markdown renderer's code and packages, inlined by next.config: part of every render cache key. Unset outside Next's bundles (tests, scripts): nothing is kept then. */
    rendererVersion: string | undefined;
  };
  /** lectern's server (server.ts). */
  server: {
    port: number;
    hostname: string;
    /** On SIGTERM or SIGINT, how long requests in flight may take to finish (SHUTDOWN_GRACE_MS). */
    shutdownGraceMs: number;
    /** Generate the posts the build left, in the background after start (PREWARM). */
    prewarm: boolean;
    /** What a connection may cost the server: see ConnectionLimits (lib/server/shutdown.ts). */
    connections: {
      /** HEADERS_TIMEOUT_MS */
      headersTimeoutMs: number;
      /** REQUEST_TIMEOUT_MS (at least headersTimeoutMs) */
      requestTimeoutMs: number;
      /** KEEP_ALIVE_TIMEOUT_MS */
      keepAliveTimeoutMs: number;
      /** MAX_CONNECTIONS */
      max: number;
    };
  };
  /** How the site is deployed: what the operator declares about the network in front of it, and whether it runs on a platform host. */
  deployment: {
    /** Proxy hops in front whose `X-Forwarded-For` / `X-Forwarded-Proto` entries are believed (TRUST_PROXY). */
    trustProxy: number;
    /** A request header the platform's edge overwrites with the client's address, lower-cased (CLIENT_IP_HEADER). */
    clientIpHeader: string | undefined;
    /** Next.js runs without lectern's server, on a host that keeps no disk between requests (PLATFORM_MODE). */
    platform: boolean;
  };
  /** What automated clients are allowed. */
  agents: {
    /** Training-only crawlers get 403 on content; robots.txt, the licence and llms.txt stay open (REFUSE_TRAINING_CRAWLERS). */
    refuseTrainingCrawlers: boolean;
    /** Tests only: agent key directories may be fetched from loopback over HTTP (WEB_BOT_AUTH_LOOPBACK_DIRECTORIES). */
    loopbackDirectories: boolean;
  };
  /** Scheduled posts going live. */
  publishing: {
    /** Bearer token of /api/publish (CRON_SECRET). */
    cronSecret: string | undefined;
    /** Tests only: milliseconds added to the system clock (LECTERN_CLOCK_OFFSET_MS). */
    clockOffsetMs: number;
  };
  /** The embedded store, when no Redis is configured. */
  store: {
    /** Where lectern.db and the mail outbox folder live, absolute (DATA_DIR). */
    dataDir: string;
  };
  /** The one Redis connection the store and the limits share: Upstash when both of its pair are set, else REDIS_URL, else none. */
  redis: {
    url: string | undefined;
    upstash: { url: string; token: string } | undefined;
  };
  /** The rate limits. */
  limits: {
    /** Scales every window of the limits table (RATE_LIMIT_WINDOW_SCALE). */
    windowScale: number;
    /** How long a decision may wait for Redis before memory decides (RATE_LIMIT_REDIS_TIMEOUT_MS). */
    redisTimeoutMs: number;
    /** Requests a minute one verified agent may send to /mcp and to /api/search (VERIFIED_AGENT_BUDGET). */
    verifiedAgentBudget: number;
  };
  /** Mail and the mail worker. */
  mail: {
    /** Send by SMTP (SMTP_URL); undefined: each message is an .eml file in `outboxDir`. */
    smtpUrl: string | undefined;
    /** The outbox folder, absolute: MAIL_OUTBOX_DIR, else DATA_DIR/outbox. */
    outboxDir: string;
    /** Whether MAIL_OUTBOX_DIR was set (a platform host has no disk for it). */
    outboxDirSet: boolean;
    /** The sender of every message: an address, or `Name <address>` (MAIL_FROM). */
    from: string | undefined;
    /** Where support messages go (SUPPORT_EMAIL). */
    supportEmail: string | undefined;
    pollMs: number;
    retryBaseMs: number;
    /** How long sent mail is kept (MAIL_RETENTION_DAYS, in milliseconds); 0 deletes it once sent. */
    retentionMs: number;
    /** How long a form mail failing temporarily is tried (MAIL_RETRY_DAYS, in milliseconds). */
    retryForMs: number;
    /** The bounce address (BOUNCE_ADDRESS); undefined: the envelope sender is the From address. */
    bounceAddress: string | undefined;
    /** lectern's own DKIM signature (DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY). */
    dkim: { domainName: string; keySelector: string; privateKey: string } | undefined;
  };
  /** What comes back: bounces and complaints, and how they are read. */
  bounces: {
    soft: { limit: number; windowMs: number };
    /** The inbound SMTP listener (BOUNCE_SMTP_PORT, BOUNCE_SMTP_HOST); undefined: off. */
    smtp: { port: number; host: string } | undefined;
    /** The most bytes the messages the listener keeps (DATA_DIR/bounces-kept) may take (BOUNCES_KEPT_MAX_MB). */
    keptMaxBytes: number;
    /** The IMAP mailbox polled (BOUNCE_IMAP_URL) every `pollMs`; undefined: none. */
    imap: { url: string; pollMs: number } | undefined;
    /** Postmark's webhook credentials (POSTMARK_WEBHOOK_AUTH, `user:password`); undefined: no webhook. */
    postmarkAuth: string | undefined;
  };
  /** The newsletter's sending. */
  newsletter: {
    /** Messages per second; 0: as fast as the server takes them (NEWSLETTER_RATE). */
    rate: number;
    /** How long a claimed message is held by its sender (NEWSLETTER_LEASE_SECONDS, in milliseconds). */
    leaseMs: number;
    /** How often it looks for newly published posts and due messages (NEWSLETTER_CHECK_MS). */
    checkMs: number;
    /** On a platform, the most messages one cron call claims at a time (NEWSLETTER_BATCH_SIZE). */
    batchSize: number;
    /** On a platform, how long one cron call goes on sending (NEWSLETTER_BUDGET_SECONDS, in milliseconds). */
    budgetMs: number;
  };
  /** Stripe. */
  payments: {
    secretKey: string | undefined;
    webhookSecret: string | undefined;
    /** Another Stripe API base URL (tests point it at a local recorder). */
    apiUrl: string | undefined;
  };
  /** Download links of the files a buyer paid for. */
  downloads: {
    /** The signing key (DOWNLOAD_SECRET, else derived from STRIPE_WEBHOOK_SECRET); undefined: no links can be made. */
    secret: string | undefined;
    /** How long a link works (DOWNLOAD_LINK_DAYS, in milliseconds). */
    linkMs: number;
    /** Downloads per link (DOWNLOAD_LIMIT). */
    limit: number;
    /** nginx's internal location for the deliverables (DOWNLOADS_ACCEL_PREFIX); undefined: lectern streams them. */
    accelPrefix: string | undefined;
  };
  /** The training's bookings. */
  bookings: {
    /** How long before a session's first meeting the reminder is due (BOOKING_REMINDER_HOURS, in milliseconds). */
    reminderLeadMs: number;
    /** How often lectern's scheduler looks for due reminders (BOOKING_REMINDER_CHECK_MS). */
    reminderCheckMs: number;
  };
  /** IndexNow. */
  indexNow: {
    /** The key served as `/{key}.txt` (INDEXNOW_KEY); undefined: no key file and nothing submitted. */
    key: string | undefined;
    /** Bearer token of /api/index-notify (INDEX_NOTIFY_TOKEN). */
    notifyToken: string | undefined;
    /** Where URLs are submitted (INDEXNOW_ENDPOINT). */
    endpoint: string;
  };
  /** The site on the fediverse (ActivityPub). */
  fediverse: {
    /** The actor's name: @{handle}@{host} (FEDIVERSE_HANDLE); undefined with FEDIVERSE=0, the site is not on the fediverse. */
    handle: string | undefined;
    /** Tests only: remote servers may be on loopback and private addresses (FEDIVERSE_LOOPBACK). */
    allowPrivateAddress: boolean;
    /** Servers refused and never contacted, lower case; each blocks its subdomains (FEDIVERSE_BLOCKED_DOMAINS). */
    blockedDomains: readonly string[];
    /** How long one activity's send to a server may take before it counts as failed (FEDIVERSE_SEND_TIMEOUT_SECONDS, in milliseconds). */
    sendTimeoutMs: number;
  };
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** The parsed variables grouped; paths made absolute against the working directory. */
function grouped(env: Env): Settings {
  const dataDir = path.resolve(/* turbopackIgnore: true */ env.DATA_DIR);
  return {
    site: { url: env.SITE_URL, contentDir: path.resolve(/* turbopackIgnore: true */ env.CONTENT_DIR), postsPerPage: env.POSTS_PER_PAGE },
    build: {
      running: env.NEXT_PHASE === 'phase-production-build',
      workers: env.BUILD_WORKERS,
      prerenderPosts: env.PRERENDER_POSTS,
      distDir: env.NEXT_DIST_DIR,
      time: env.LECTERN_BUILD_TIME ?? Date.now(),
      rendererVersion: env.LECTERN_RENDERER_VERSION,
    },
    server: {
      port: env.PORT,
      hostname: env.HOSTNAME,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      prewarm: env.PREWARM,
      connections: {
        headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
        requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
        keepAliveTimeoutMs: env.KEEP_ALIVE_TIMEOUT_MS,
        max: env.MAX_CONNECTIONS,
      },
    },
    deployment: { trustProxy: env.TRUST_PROXY, clientIpHeader: env.CLIENT_IP_HEADER, platform: env.PLATFORM_MODE },
    agents: {
      refuseTrainingCrawlers: env.REFUSE_TRAINING_CRAWLERS,
      loopbackDirectories: env.WEB_BOT_AUTH_LOOPBACK_DIRECTORIES,
    },
    publishing: { cronSecret: env.CRON_SECRET, clockOffsetMs: env.LECTERN_CLOCK_OFFSET_MS },
    store: { dataDir },
    redis: {
      url: env.REDIS_URL,
      upstash:
        env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN ? { url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN } : undefined,
    },
    limits: { windowScale: env.RATE_LIMIT_WINDOW_SCALE, redisTimeoutMs: env.RATE_LIMIT_REDIS_TIMEOUT_MS, verifiedAgentBudget: env.VERIFIED_AGENT_BUDGET },
    mail: {
      smtpUrl: env.SMTP_URL,
      outboxDir: path.resolve(/* turbopackIgnore: true */ env.MAIL_OUTBOX_DIR ?? path.join(dataDir, 'outbox')),
      outboxDirSet: env.MAIL_OUTBOX_DIR !== undefined,
      from: env.MAIL_FROM,
      supportEmail: env.SUPPORT_EMAIL,
      pollMs: env.MAIL_POLL_MS,
      retryBaseMs: env.MAIL_RETRY_BASE_MS,
      retentionMs: env.MAIL_RETENTION_DAYS * DAY_MS,
      retryForMs: env.MAIL_RETRY_DAYS * DAY_MS,
      bounceAddress: env.BOUNCE_ADDRESS,
      dkim:
        env.DKIM_DOMAIN && env.DKIM_SELECTOR && env.DKIM_PRIVATE_KEY
          ? { domainName: env.DKIM_DOMAIN, keySelector: env.DKIM_SELECTOR, privateKey: env.DKIM_PRIVATE_KEY.replace(/\\n/g, '\n') }
          : undefined,
    },
    bounces: {
      soft: { limit: env.SOFT_BOUNCE_LIMIT, windowMs: env.SOFT_BOUNCE_WINDOW_DAYS * DAY_MS },
      smtp: env.BOUNCE_SMTP_PORT === undefined ? undefined : { port: env.BOUNCE_SMTP_PORT, host: env.BOUNCE_SMTP_HOST },
      keptMaxBytes: env.BOUNCES_KEPT_MAX_MB * 1024 * 1024,
      imap: env.BOUNCE_IMAP_URL ? { url: env.BOUNCE_IMAP_URL, pollMs: env.BOUNCE_IMAP_POLL_SECONDS * 1000 } : undefined,
      postmarkAuth: env.POSTMARK_WEBHOOK_AUTH,
    },
    newsletter: {
      rate: env.NEWSLETTER_RATE,
      leaseMs: env.NEWSLETTER_LEASE_SECONDS * 1000,
      checkMs: env.NEWSLETTER_CHECK_MS,
      batchSize: env.NEWSLETTER_BATCH_SIZE,
      budgetMs: env.NEWSLETTER_BUDGET_SECONDS * 1000,
    },
    payments: { secretKey: env.STRIPE_SECRET_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET, apiUrl: env.STRIPE_API_URL },
    downloads: {
      secret: env.DOWNLOAD_SECRET ?? (env.STRIPE_WEBHOOK_SECRET ? `derived from the webhook secret:${env.STRIPE_WEBHOOK_SECRET}` : undefined),
      linkMs: env.DOWNLOAD_LINK_DAYS * DAY_MS,
      limit: env.DOWNLOAD_LIMIT,
      accelPrefix: env.DOWNLOADS_ACCEL_PREFIX,
    },
    bookings: { reminderLeadMs: env.BOOKING_REMINDER_HOURS * 60 * 60 * 1000, reminderCheckMs: env.BOOKING_REMINDER_CHECK_MS },
    indexNow: { key: env.INDEXNOW_KEY, notifyToken: env.INDEX_NOTIFY_TOKEN, endpoint: env.INDEXNOW_ENDPOINT },
    fediverse: {
      handle: env.FEDIVERSE ? env.FEDIVERSE_HANDLE : undefined,
      allowPrivateAddress: env.FEDIVERSE_LOOPBACK,
      blockedDomains: env.FEDIVERSE_BLOCKED_DOMAINS,
      sendTimeoutMs: env.FEDIVERSE_SEND_TIMEOUT_SECONDS * 1000,
    },
  };
}

/** One error naming every bad value, one per line. */
export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

/** Parses a set of variables (empty values count as unset) into the settings; every bad value is named in one error. */
export function parseSettings(source: EnvSource): Settings {
  const given = Object.fromEntries(Object.keys(envSchema.shape).flatMap((key) => (source[key] ? [[key, source[key]]] : [])));
  const parsed = envSchema.safeParse(given);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  if (Boolean(given.UPSTASH_REDIS_REST_URL) !== Boolean(given.UPSTASH_REDIS_REST_TOKEN))
    problems.push('UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together');
  const dkim = [given.DKIM_DOMAIN, given.DKIM_SELECTOR, given.DKIM_PRIVATE_KEY].filter(Boolean).length;
  if (dkim !== 0 && dkim !== 3) problems.push('DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY must be set together');
  if (given.POSTMARK_WEBHOOK_AUTH && !given.BOUNCE_ADDRESS)
    problems.push('POSTMARK_WEBHOOK_AUTH: needs BOUNCE_ADDRESS (each message then gets the bounce token the webhook is matched by)');
  if (parsed.success && parsed.data.REQUEST_TIMEOUT_MS < parsed.data.HEADERS_TIMEOUT_MS)
    problems.push('REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS (the headers are part of the request)');
  if (problems.length > 0 || !parsed.success) throw new InvalidEnvironmentError(problems);
  return grouped(parsed.data);
}

let cached: Settings | undefined;

/**
 * The process's settings, parsed from its environment on first use and kept. LECTERN_BUILD_TIME
 * and LECTERN_RENDERER_VERSION are read by name: Next.js inlines those reads into what it builds.
 */
export function settings(): Settings {
  cached ??= parseSettings({
    ...process.env,
    LECTERN_BUILD_TIME: process.env.LECTERN_BUILD_TIME,
    LECTERN_RENDERER_VERSION: process.env.LECTERN_RENDERER_VERSION,
  });
  return cached;
}

/**
 * NODE_ENV (development under `npm run dev`, production under `npm run build`
 * and `npm start`) as it is now: lectern's server parses the settings before
 * Next.js sets it, so it is read afresh each time, not kept by `settings()`. Next.js
 * inlines this read into what it builds.
 */
export function nodeEnv(): string | undefined {
  return process.env.NODE_ENV;
}

/**
 * For the start of a process (server.ts, instrumentation, next.config.ts): parses the
 * environment, or prints every bad value and ends the process with status 1.
 */
export function settingsOrExit(exit: (code: number) => never = process.exit, log: Pick<Console, 'error'> = console): Settings {
  try {
    return settings();
  } catch (error) {
    if (!(error instanceof InvalidEnvironmentError)) throw error;
    log.error(error.message);
    return exit(1);
  }
}

/**
 * What a platform host lacks that the settings still ask for: such hosts run
 * the site in short-lived instances with no disk kept between requests, so the
 * embedded store (SQLite) and the mail outbox folder would lose what they hold,
 * and no lectern server records client addresses. Empty when all is well.
 */
export function platformProblems(given: Settings = settings()): string[] {
  if (!given.deployment.platform) return [];
  const problems: string[] = [];
  if (!given.redis.upstash && !given.redis.url) {
    problems.push(
      'the store needs UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (or REDIS_URL): the embedded SQLite file would live on a disk the host does not keep',
    );
  }
  if (!given.mail.smtpUrl) problems.push('mail needs SMTP_URL: the outbox folder would live on a disk the host does not keep');
  if (given.mail.outboxDirSet) problems.push('MAIL_OUTBOX_DIR cannot be used: the host keeps no disk; set SMTP_URL instead');
  if (!given.deployment.clientIpHeader && given.deployment.trustProxy === 0) {
    problems.push(
      "the rate limits need the client address: set CLIENT_IP_HEADER to the header your platform's edge overwrites with it (x-real-ip on Vercel), or TRUST_PROXY to the number of proxies that append to X-Forwarded-For",
    );
  }
  return problems;
}
