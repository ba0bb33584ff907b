import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidEnvironmentError, parseEnv } from '@/lib/env';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('parseEnv', () => {
  it('gives every default when nothing is set, and counts an empty value as unset', () => {
    const defaults = parseEnv({});
    expect(defaults).toMatchObject({
      SITE_URL: 'http://localhost:3000',
      CONTENT_DIR: 'content',
      POSTS_PER_PAGE: 20,
      PORT: 3000,
      HOSTNAME: '0.0.0.0',
      SHUTDOWN_GRACE_MS: 10_000,
      TRUST_PROXY: 0,
      PLATFORM_MODE: false,
      DATA_DIR: '.data',
      RATE_LIMIT_WINDOW_SCALE: 1,
      RATE_LIMIT_REDIS_TIMEOUT_MS: 250,
      MAIL_POLL_MS: 5000,
      MAIL_RETRY_BASE_MS: 5000,
      MAIL_RETENTION_DAYS: 30,
      INDEXNOW_ENDPOINT: 'https://api.indexnow.org/indexnow',
    });
    for (const unset of ['REDIS_URL', 'SMTP_URL', 'STRIPE_SECRET_KEY', 'INDEXNOW_KEY', 'LECTERN_BUILD_TIME', 'CLIENT_IP_HEADER'])
      expect(defaults).not.toHaveProperty(unset);
    expect(parseEnv({ PORT: '', MAIL_POLL_MS: '', REDIS_URL: '' })).toEqual(defaults);
  });

  it('reads values in the types the code uses', () => {
    const settings = parseEnv({
      SITE_URL: 'https://example.com/',
      PORT: '8080',
      PLATFORM_MODE: 'true',
      CLIENT_IP_HEADER: 'X-Real-IP',
      LECTERN_BUILD_TIME: '1700000000000',
      INDEXNOW_KEY: 'abcdef0123456789',
    });
    expect(settings).toMatchObject({
      SITE_URL: 'https://example.com',
      PORT: 8080,
      PLATFORM_MODE: true,
      CLIENT_IP_HEADER: 'x-real-ip',
      LECTERN_BUILD_TIME: 1_700_000_000_000,
      INDEXNOW_KEY: 'abcdef0123456789',
    });
  });

  it('names every bad value in one error, one line each', () => {
    const bad = {
      SITE_URL: 'example.com',
      POSTS_PER_PAGE: '0',
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
    let error: unknown;
    try {
      parseEnv(bad);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidEnvironmentError);
    const { problems, message } = error as InvalidEnvironmentError;
    // Every bad variable once, in the order of .env.example, and the Upstash pair (the token is missing).
    expect(problems.map((problem) => problem.split(':')[0])).toEqual([
      ...Object.keys(bad),
      'UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together',
    ]);
    expect(message.split('\n')).toEqual(['Invalid environment:', ...problems.map((problem) => `  ${problem}`)]);
    expect(message).toMatch(/MAIL_POLL_MS: must be a whole number of milliseconds/);
    expect(message).toMatch(/INDEXNOW_KEY: must be 8 to 128 letters, digits or dashes/);
  });

  it('refuses a value that is not a whole number where one is asked for, instead of reading it as 0 or NaN', () => {
    expect(() => parseEnv({ MAIL_POLL_MS: '0' })).toThrow(/MAIL_POLL_MS: must be more than 0/);
    expect(() => parseEnv({ PORT: '80.5' })).toThrow(/PORT: must be a port number/);
    expect(() => parseEnv({ UPSTASH_REDIS_REST_TOKEN: 'token' })).toThrow(/must be set together/);
  });
});

describe('envOrExit', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  /** envOrExit of a fresh module (the settings are parsed once per process), with what it printed and the codes it exited with. */
  async function startWith(settings: Record<string, string>) {
    for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
    vi.resetModules();
    const fresh = await import('@/lib/env');
    const printed: string[] = [];
    const codes: number[] = [];
    const exit = (code: number): never => {
      codes.push(code);
      throw new Error('exited');
    };
    const start = () => fresh.envOrExit(exit, { error: (message: string) => printed.push(message) });
    return { start, printed, codes };
  }

  it('returns the settings, printing nothing and exiting nothing, when they are good', async () => {
    const { start, printed, codes } = await startWith({ PORT: '4321' });
    expect(start().PORT).toBe(4321);
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
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
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
