import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidEnvironmentError, parseSettings, platformProblems, type EnvSource } from '@/lib/settings';
import { SERVER_ARGS } from '@/lib/server/node-flags';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DAY_MS = 24 * 60 * 60 * 1000;

/** The error parseSettings throws for these variables. */
function problemsOf(source: EnvSource): InvalidEnvironmentError {
  try {
    parseSettings(source);
  } catch (error) {
    if (error instanceof InvalidEnvironmentError) return error;
    throw error;
  }
  throw new Error('the settings were accepted');
}

describe('parseSettings', () => {
  it('gives every default when nothing is set, grouped by what each is about, and counts an empty value as unset', () => {
    const before = Date.now();
    const defaults = parseSettings({});
    expect(defaults).toEqual({
      site: { url: 'http://localhost:3000', contentDir: path.resolve('content'), postsPerPage: 20 },
      build: { running: false, workers: undefined, prerenderPosts: 100, distDir: '.next', time: expect.any(Number), rendererVersion: undefined },
      server: {
        port: 3000,
        hostname: '0.0.0.0',
        shutdownGraceMs: 10_000,
        prewarm: true,
        connections: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, max: 4_096 },
      },
      deployment: { trustProxy: 0, clientIpHeader: undefined, platform: false },
      agents: { refuseTrainingCrawlers: true, loopbackDirectories: false },
      publishing: { cronSecret: undefined, clockOffsetMs: 0 },
      store: { dataDir: path.resolve('.data') },
      redis: { url: undefined, upstash: undefined },
      limits: { windowScale: 1, redisTimeoutMs: 250, verifiedAgentBudget: 6000 },
      mail: {
        smtpUrl: undefined,
        outboxDir: path.resolve('.data', 'outbox'),
        outboxDirSet: false,
        from: undefined,
        supportEmail: undefined,
        pollMs: 5000,
        retryBaseMs: 5000,
        retentionMs: 30 * DAY_MS,
        retryForMs: 3 * DAY_MS,
        bounceAddress: undefined,
        dkim: undefined,
      },
      bounces: { soft: { limit: 3, windowMs: 30 * DAY_MS }, smtp: undefined, keptMaxBytes: 100 * 1024 * 1024, imap: undefined, postmarkAuth: undefined },
      newsletter: { rate: 10, leaseMs: 120_000, checkMs: 5000, batchSize: 100, budgetMs: 40_000 },
      payments: { secretKey: undefined, webhookSecret: undefined, apiUrl: undefined },
      downloads: { secret: undefined, linkMs: 30 * DAY_MS, limit: 5, accelPrefix: undefined },
      bookings: { reminderLeadMs: 48 * 60 * 60 * 1000, reminderCheckMs: 60_000 },
      indexNow: { key: undefined, notifyToken: undefined, endpoint: 'https://api.indexnow.org/indexnow' },
      fediverse: { handle: 'blog', allowPrivateAddress: false, blockedDomains: [], sendTimeoutMs: 30_000 },
    });
    // No build time: the moment the settings were parsed.
    expect(defaults.build.time).toBeGreaterThanOrEqual(before);
    expect(defaults.build.time).toBeLessThanOrEqual(Date.now());
    expect(parseSettings({ PORT: '', MAIL_POLL_MS: '', REDIS_URL: '', BUILD_WORKERS: '' })).toEqual({
      ...defaults,
      build: { ...defaults.build, time: expect.any(Number) },
    });
  });

  it('takes the fediverse handle from FEDIVERSE_HANDLE, is off with FEDIVERSE=0, and refuses a handle that cannot be', () => {
    expect(parseSettings({ FEDIVERSE_HANDLE: 'notes_2', FEDIVERSE_LOOPBACK: '1' }).fediverse).toEqual({
      handle: 'notes_2',
      allowPrivateAddress: true,
      blockedDomains: [],
      sendTimeoutMs: 30_000,
    });
    expect(parseSettings({ FEDIVERSE_SEND_TIMEOUT_SECONDS: '5' }).fediverse.sendTimeoutMs).toBe(5000);
    expect(() => parseSettings({ FEDIVERSE_SEND_TIMEOUT_SECONDS: '0' })).toThrow(/FEDIVERSE_SEND_TIMEOUT_SECONDS: must be at least 1/);
    expect(parseSettings({ FEDIVERSE: '0', FEDIVERSE_HANDLE: 'notes_2' }).fediverse.handle).toBeUndefined();
    expect(() => parseSettings({ FEDIVERSE: 'no' })).toThrow(/FEDIVERSE: must be 1 \(or true\)/);
    expect(() => parseSettings({ FEDIVERSE_HANDLE: 'my blog' })).toThrow(/FEDIVERSE_HANDLE: must be 1 to 30 letters, digits or underscores/);
    expect(() => parseSettings({ FEDIVERSE_HANDLE: '@blog' })).toThrow(/FEDIVERSE_HANDLE/);
  });

  it('reads the blocked fediverse domains as a list, lower case, and refuses anything that is not a domain name', () => {
    expect(parseSettings({ FEDIVERSE_BLOCKED_DOMAINS: ' Spam.Example , bad.example.,,' }).fediverse.blockedDomains).toEqual(['spam.example', 'bad.example']);
    expect(() => parseSettings({ FEDIVERSE_BLOCKED_DOMAINS: 'spam.example, https://bad.example/' })).toThrow(/FEDIVERSE_BLOCKED_DOMAINS/);
    expect(() => parseSettings({ FEDIVERSE_BLOCKED_DOMAINS: '*.bad.example' })).toThrow(/comma-separated list of domain names/);
  });

  it('signs download links with DOWNLOAD_SECRET, else a key made from the webhook secret, and refuses a bad accel prefix', () => {
    expect(parseSettings({ DOWNLOAD_SECRET: 'x'.repeat(32), STRIPE_WEBHOOK_SECRET: 'whsec_1' }).downloads.secret).toBe('x'.repeat(32));
    const derived = parseSettings({ STRIPE_WEBHOOK_SECRET: 'whsec_1' }).downloads.secret;
    expect(derived).toBeDefined();
    expect(derived).not.toBe('whsec_1');
    expect(parseSettings({ DOWNLOAD_LINK_DAYS: '7', DOWNLOAD_LIMIT: '3', DOWNLOADS_ACCEL_PREFIX: '/_deliverables/' }).downloads).toMatchObject({
      linkMs: 7 * DAY_MS,
      limit: 3,
      accelPrefix: '/_deliverables/',
    });
    expect(() => parseSettings({ DOWNLOADS_ACCEL_PREFIX: '_deliverables' })).toThrow(/DOWNLOADS_ACCEL_PREFIX/);
    expect(() => parseSettings({ DOWNLOAD_SECRET: 'short' })).toThrow(/DOWNLOAD_SECRET: must be at least 32 characters/);
  });

  it('reads each value into its group, in the type and unit the code uses', () => {
    const settings = parseSettings({
      SITE_URL: 'https://example.com/',
      CONTENT_DIR: 'tests/fixtures/content',
      PORT: '8080',
      PREWARM: '0',
      BUILD_WORKERS: '3',
      PRERENDER_POSTS: '0',
      NEXT_PHASE: 'phase-production-build',
      LECTERN_BUILD_TIME: '1700000000000',
      PLATFORM_MODE: 'true',
      CLIENT_IP_HEADER: 'X-Real-IP',
      DATA_DIR: 'var/lectern',
      UPSTASH_REDIS_REST_URL: 'https://example.upstash.io',
      UPSTASH_REDIS_REST_TOKEN: 'token',
      RATE_LIMIT_WINDOW_SCALE: '0.5',
      MAIL_RETENTION_DAYS: '0',
      NEWSLETTER_LEASE_SECONDS: '30',
      NEWSLETTER_BATCH_SIZE: '25',
      NEWSLETTER_BUDGET_SECONDS: '12',
      STRIPE_SECRET_KEY: 'sk_test_1',
      INDEXNOW_KEY: 'abcdef0123456789',
    });
    expect(settings.site).toEqual({ url: 'https://example.com', contentDir: path.resolve('tests/fixtures/content'), postsPerPage: 20 });
    expect(settings.build).toMatchObject({ running: true, workers: 3, prerenderPosts: 0, time: 1_700_000_000_000 });
    expect(settings.server).toMatchObject({ port: 8080, prewarm: false });
    expect(settings.deployment).toEqual({ trustProxy: 0, clientIpHeader: 'x-real-ip', platform: true });
    expect(settings.store.dataDir).toBe(path.resolve('var/lectern'));
    expect(settings.redis).toEqual({ url: undefined, upstash: { url: 'https://example.upstash.io', token: 'token' } });
    expect(settings.limits.windowScale).toBe(0.5);
    // The outbox follows DATA_DIR unless MAIL_OUTBOX_DIR says otherwise.
    expect(settings.mail).toMatchObject({ outboxDir: path.resolve('var/lectern/outbox'), outboxDirSet: false, retentionMs: 0 });
    expect(settings.newsletter).toMatchObject({ leaseMs: 30_000, batchSize: 25, budgetMs: 12_000 });
    expect(settings.payments.secretKey).toBe('sk_test_1');
    expect(settings.indexNow.key).toBe('abcdef0123456789');
    expect(parseSettings({ MAIL_OUTBOX_DIR: 'mail', MAIL_RETENTION_DAYS: '7' }).mail).toMatchObject({
      outboxDir: path.resolve('mail'),
      outboxDirSet: true,
      retentionMs: 7 * DAY_MS,
    });
  });

  it('names every bad value in one error, one line each', () => {
    const bad = {
      SITE_URL: 'example.com',
      POSTS_PER_PAGE: '0',
      BUILD_WORKERS: '100',
      LECTERN_BUILD_TIME: 'yesterday',
      PORT: '70000',
      TRUST_PROXY: 'yes',
      CLIENT_IP_HEADER: 'x real ip',
      PLATFORM_MODE: 'maybe',
      REDIS_URL: 'http://127.0.0.1:6379',
      UPSTASH_REDIS_REST_URL: 'ftp://example.com',
      RATE_LIMIT_WINDOW_SCALE: '2',
      RATE_LIMIT_REDIS_TIMEOUT_MS: '0',
      SMTP_URL: 'mail.example.com',
      MAIL_POLL_MS: 'abc',
      MAIL_RETRY_BASE_MS: '-5',
      MAIL_RETENTION_DAYS: '1.5',
      STRIPE_API_URL: 'not a url',
      INDEXNOW_KEY: 'short',
      INDEXNOW_ENDPOINT: 'nowhere',
    };
    const { problems, message } = problemsOf(bad);
    // Every bad variable once, in the order of .env.example, and the Upstash pair (the token is missing).
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      ...Object.keys(bad),
      'UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together',
    ]);
    expect(message.split('\n')).toEqual(['Invalid environment:', ...problems.map((problem) => `  ${problem}`)]);
    expect(message).toMatch(/BUILD_WORKERS: BUILD_WORKERS must be a whole number from 1 to 99/);
    expect(message).toMatch(/MAIL_POLL_MS: must be a whole number of milliseconds/);
    expect(message).toMatch(/INDEXNOW_KEY: must be 8 to 128 letters, digits or dashes/);
  });

  it('reads the bounce and DKIM settings, and refuses a bounce address too long for VERP or DKIM settings given in part', () => {
    const given = parseSettings({
      BOUNCE_ADDRESS: 'bounces@mail.example.com',
      BOUNCE_SMTP_PORT: '2525',
      BOUNCE_IMAP_URL: 'imaps://u:p@imap.example.com/INBOX',
      SOFT_BOUNCE_LIMIT: '5',
      DKIM_DOMAIN: 'example.com',
      DKIM_SELECTOR: 's1',
      DKIM_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\\nabc\\n-----END PRIVATE KEY-----',
    });
    expect(given.mail.bounceAddress).toBe('bounces@mail.example.com');
    expect(given.mail.dkim).toEqual({
      domainName: 'example.com',
      keySelector: 's1',
      privateKey: '-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----',
    });
    expect(given.bounces).toMatchObject({
      soft: { limit: 5 },
      smtp: { port: 2525, host: '127.0.0.1' },
      imap: { url: 'imaps://u:p@imap.example.com/INBOX', pollMs: 60_000 },
    });
    expect(() => parseSettings({ BOUNCE_ADDRESS: 'a-very-long-bounce-local-part@example.com' })).toThrow(/BOUNCE_ADDRESS: must be an address/);
    expect(() => parseSettings({ BOUNCE_ADDRESS: 'bounces+x@example.com' })).toThrow(/BOUNCE_ADDRESS/);
    expect(() => parseSettings({ DKIM_DOMAIN: 'example.com' })).toThrow(/DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY must be set together/);
    expect(() => parseSettings({ POSTMARK_WEBHOOK_AUTH: 'postmark:a-long-webhook-password' })).toThrow(/POSTMARK_WEBHOOK_AUTH: needs BOUNCE_ADDRESS/);
    expect(() => parseSettings({ POSTMARK_WEBHOOK_AUTH: 'postmark:short', BOUNCE_ADDRESS: 'bounces@example.com' })).toThrow(
      /POSTMARK_WEBHOOK_AUTH: must be user:password, the password at least 16 characters/,
    );
    expect(parseSettings({ POSTMARK_WEBHOOK_AUTH: 'postmark:a-long-webhook-password', BOUNCE_ADDRESS: 'bounces@example.com' }).bounces.postmarkAuth).toBe(
      'postmark:a-long-webhook-password',
    );
  });

  it('refuses a value that is not a whole number where one is asked for, instead of reading it as 0 or NaN', () => {
    expect(() => parseSettings({ MAIL_POLL_MS: '0' })).toThrow(/MAIL_POLL_MS: must be more than 0/);
    expect(() => parseSettings({ PORT: '80.5' })).toThrow(/PORT: must be a port number/);
    expect(() => parseSettings({ TRUST_PROXY: '-1' })).toThrow(/TRUST_PROXY: must be a whole number/);
    expect(() => parseSettings({ MAIL_RETENTION_DAYS: '3651' })).toThrow(/MAIL_RETENTION_DAYS: must be at most 3650/);
    expect(() => parseSettings({ UPSTASH_REDIS_REST_TOKEN: 'token' })).toThrow(/must be set together/);
  });

  it('takes the connection limits, and refuses a request timeout shorter than the headers timeout', () => {
    const given = parseSettings({ HEADERS_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '4000', KEEP_ALIVE_TIMEOUT_MS: '3000', MAX_CONNECTIONS: '50' });
    expect(given.server.connections).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 4000, keepAliveTimeoutMs: 3000, max: 50 });
    expect(problemsOf({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' }).problems).toEqual([
      'REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS (the headers are part of the request)',
    ]);
    expect(() => parseSettings({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS: must be at least 1/);
  });

  it("refuses a client address header that is lectern's own, and an IndexNow key a URL path would need escaped", () => {
    expect(problemsOf({ CLIENT_IP_HEADER: 'x-lectern-client-ip' }).problems).toEqual([
      "CLIENT_IP_HEADER: must be a header your platform sets, not one of lectern's own",
    ]);
    for (const value of ['has space 123', '../../etc/passwd', 'k'.repeat(129)]) {
      expect(problemsOf({ INDEXNOW_KEY: value }).problems, value).toEqual(['INDEXNOW_KEY: must be 8 to 128 letters, digits or dashes']);
    }
  });
});

describe('settings', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("parses the process's environment once: a later change to it, or a later call, changes nothing", async () => {
    vi.resetModules();
    vi.stubEnv('POSTS_PER_PAGE', '7');
    vi.stubEnv('LECTERN_BUILD_TIME', '');
    const { settings } = await import('@/lib/settings');
    const first = settings();
    expect(first.site.postsPerPage).toBe(7);
    vi.stubEnv('POSTS_PER_PAGE', '8');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settings()).toBe(first);
    expect(settings().build.time).toBe(first.build.time);
  });
});

describe('platformProblems', () => {
  const ready = {
    PLATFORM_MODE: '1',
    UPSTASH_REDIS_REST_URL: 'https://example.upstash.io',
    UPSTASH_REDIS_REST_TOKEN: 't',
    SMTP_URL: 'smtp://mail.example.com',
    CLIENT_IP_HEADER: 'x-real-ip',
  };
  const problems = (source: EnvSource) => platformProblems(parseSettings(source));

  it('finds nothing outside platform mode, whatever else is set', () => {
    expect(problems({ MAIL_OUTBOX_DIR: '/tmp/out' })).toEqual([]);
  });

  it('finds nothing on a platform with a remote store, SMTP and a client address source', () => {
    expect(problems(ready)).toEqual([]);
    expect(problems({ ...ready, UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined, REDIS_URL: 'redis://db.example.com' })).toEqual([]);
    expect(problems({ ...ready, CLIENT_IP_HEADER: undefined, TRUST_PROXY: '1' })).toEqual([]);
  });

  it('refuses the embedded store, the outbox folder and an unknown client address, each named', () => {
    const found = problems({ PLATFORM_MODE: '1', MAIL_OUTBOX_DIR: '/tmp/out' });
    expect(found).toHaveLength(4);
    expect(found.join('\n')).toMatch(/UPSTASH_REDIS_REST_URL[\s\S]*SMTP_URL[\s\S]*MAIL_OUTBOX_DIR[\s\S]*CLIENT_IP_HEADER/);
  });
});

describe('settingsOrExit', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  /** settingsOrExit of a fresh module (the settings are parsed once per process), with what it printed and the codes it exited with. */
  async function startWith(settings: Record<string, string>) {
    for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
    vi.resetModules();
    const fresh = await import('@/lib/settings');
    const printed: string[] = [];
    const codes: number[] = [];
    const exit = (code: number): never => {
      codes.push(code);
      throw new Error('exited');
    };
    const start = () => fresh.settingsOrExit(exit, { error: (message: string) => printed.push(message) });
    return { start, printed, codes };
  }

  it('returns the settings, printing nothing and exiting nothing, when they are good', async () => {
    const { start, printed, codes } = await startWith({ PORT: '4321' });
    expect(start().server.port).toBe(4321);
    expect(codes).toEqual([]);
    expect(printed).toEqual([]);
  });

  it('prints every bad value and ends the process with status 1 when they are not', async () => {
    const { start, printed, codes } = await startWith({ MAIL_POLL_MS: 'abc', STRIPE_API_URL: 'stripe' });
    // The stand-in for process.exit throws, as the real one never returns.
    expect(start).toThrow('exited');
    expect(codes).toEqual([1]);
    expect(printed).toEqual(['Invalid environment:\n  MAIL_POLL_MS: must be a whole number of milliseconds\n  STRIPE_API_URL: must be an http(s) URL']);
  });
});

/** Runs a module of the project with tsx in a fresh process, with `env` on top of this one's environment. */
function run(code: string, env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('a start with bad settings', () => {
  it("stops lectern's server with status 1, naming every bad value", () => {
    const result = spawnSync(process.execPath, [...SERVER_ARGS], {
      cwd: ROOT,
      env: { ...process.env, PORT: 'eighty', MAIL_POLL_MS: 'abc', INDEXNOW_KEY: 'bad key' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /Invalid environment:\n {2}PORT: must be a port number[^\n]*\n {2}MAIL_POLL_MS: must be a whole number of milliseconds\n {2}INDEXNOW_KEY: /,
    );
    expect(result.stdout).not.toMatch(/server on/);
  });

  it('stops a build (next.config.ts) with status 1 and the same message', () => {
    const result = run("await import('./next.config.ts'); console.log('loaded');", { BUILD_WORKERS: 'many', PRERENDER_POSTS: '-1' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(
      /Invalid environment:\n {2}PRERENDER_POSTS: PRERENDER_POSTS must be a whole number[^\n]*\n {2}BUILD_WORKERS: BUILD_WORKERS must be a whole number from 1 to 99/,
    );
    expect(result.stdout).not.toMatch(/loaded/);
  });

  it('stops a host that runs Next.js itself (instrumentation) with status 1 and the same message', () => {
    const result = run("const { register } = await import('./instrumentation.ts'); await register(); console.log('started');", {
      NEXT_RUNTIME: 'nodejs',
      RATE_LIMIT_WINDOW_SCALE: '5',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/Invalid environment:\n {2}RATE_LIMIT_WINDOW_SCALE: must be at most 1/);
    expect(result.stdout).not.toMatch(/started/);
  });
});
