import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { freshAddress, postForm, postJson, request, unfinishedUpload } from '../support/client';
import { flushRedis, startRedis, testRedisUrl } from '../support/redis';
import { contractSites } from '../support/contract-sites';
import { type RunningSite } from '../support/site';

const ROUTES: [string, number, number, unknown][] = [
  ['/api/subscribe', 5, 600, { email: 'reader@example.com' }],
  ['/api/support', 5, 600, { name: 'Reader', email: 'reader@example.com', subject: 'Hello', message: 'A question.' }],
  ['/api/payments/checkout', 10, 600, { product: 'fixture-book' }],
  ['/api/payments/training/checkout', 10, 600, { product: 'fixture-training', session: 'spring', seats: 1 }],
  ['/api/payments/special-offer/checkout', 10, 600, { product: 'fixture-offer' }],
  ['/api/booking/cancel', 20, 3600, { booking: 'bk_12345678', token: 'x'.repeat(32), confirm: 'yes' }],
  ['/api/index-notify', 20, 3600, {}],
  ['/api/bounces/postmark', 300, 600, { RecordType: 'Bounce', ID: 1, Type: 'HardBounce' }],
  ['/api/subscribe/confirm', 20, 3600, { token: 'x'.repeat(43) }],
  ['/api/subscribe/unsubscribe', 120, 600, { token: 'x'.repeat(43) }],
];

/** A body announced at 5 MB, and one sent in chunks without a length. */
const UNFINISHED_BODIES: Record<string, string>[] = [{ 'Content-Length': String(5 * 1024 * 1024) }, { 'Transfer-Encoding': 'chunked' }];

const startSiteWith = contractSites();
const site = (extraEnv: Record<string, string> = {}) => startSiteWith({ extraEnv });

describe('write routes on the in-memory limiter', () => {
  let base: string;
  let running: RunningSite;
  beforeAll(async () => {
    running = await site();
    base = running.baseUrl;
  });

  it.each(ROUTES)('%s allows %i requests per window, then answers 429 with honest headers', async (path, requests, window, body) => {
    const from = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < requests; i++) {
      const response = await postJson(base, path, body, { from });
      statuses.push(response.status);
      expect(response.headers['ratelimit-policy']).toBe(`"${routeKey(path)}";q=${requests};w=${window}`);
      expect(response.headers.ratelimit).toMatch(new RegExp(`^"${routeKey(path)}";r=${requests - i - 1};t=\\d+$`));
    }
    expect(statuses).not.toContain(429);
    const refused = await postJson(base, path, body, { from });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(window + 1);
    expect(refused.headers.ratelimit).toMatch(/;r=0;t=\d+$/);
    expect(refused.json()).toMatchObject({ status: 429, title: 'Too many requests', detail: expect.stringContaining(`${retryAfter} second`) });
  });

  it('counts refused and invalid requests too', async () => {
    const from = freshAddress();
    for (let i = 0; i < 5; i++) expect((await postJson(base, '/api/subscribe', { email: 'not-an-email' }, { from })).status).toBe(400);
    expect((await postJson(base, '/api/subscribe', { email: 'reader@example.com' }, { from })).status).toBe(429);
  });

  it('answers another method with 405 and Allow: POST, without counting it', async () => {
    const from = freshAddress();
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const response = await request(base, '/api/subscribe', { method, from });
      expect(response.status).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    }
    const afterwards = await postJson(base, '/api/subscribe', { email: 'reader@example.com' }, { from });
    expect(afterwards.headers.ratelimit).toMatch(/;r=4;/);
  });

  it('refuses a browser post from another origin with 403', async () => {
    const response = await postJson(base, '/api/support', {}, { from: freshAddress(), headers: { Origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
    expect(response.json()).toMatchObject({ status: 403 });
    const ownOrigin = await postJson(
      base,
      '/api/subscribe',
      { email: 'reader@example.com' },
      { from: freshAddress(), headers: { Origin: new URL(inject('siteUrl')).origin } },
    );
    expect(ownOrigin.status).not.toBe(403);
  });

  it('refuses other content types with 415', async () => {
    const response = await request(base, '/api/subscribe', {
      method: 'POST',
      from: freshAddress(),
      headers: { 'Content-Type': 'text/plain' },
      body: 'email=reader@example.com',
    });
    expect(response.status).toBe(415);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('refuses a body over 16 KiB with 413, with or without Content-Length', async () => {
    const big = JSON.stringify({ email: 'reader@example.com', name: 'x'.repeat(17 * 1024) });
    const declared = await postJson(base, '/api/subscribe', JSON.parse(big), { from: freshAddress() });
    expect(declared.status).toBe(413);
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(1024, 'a'));
    const streamed = await request(base, '/api/support', {
      method: 'POST',
      from: freshAddress(),
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' },
      body: chunks,
    });
    expect(streamed.status).toBe(413);
  });

  it('refuses a form body past 16 KiB as soon as it passes, without waiting for the rest of the upload', async () => {
    for (const headers of UNFINISHED_BODIES) {
      const response = await unfinishedUpload(base, '/api/subscribe', {
        from: freshAddress(),
        headers: { 'Content-Type': 'application/json', ...headers },
        firstPart: Buffer.alloc(64 * 1024, 'a'),
      });
      expect(response.status).toBe(413);
      expect(response.json()).toMatchObject({ status: 413, detail: 'The body is larger than 16 KiB.' });
    }
  });

  it('refuses a body sent to a page or a read with 413, before Next buffers it and without waiting for the rest', async () => {
    for (const pathname of ['/blog/alpha-post', '/blog/alpha-post.md', '/api/blog', '/']) {
      for (const headers of UNFINISHED_BODIES) {
        const response = await unfinishedUpload(base, pathname, {
          from: freshAddress(),
          headers: { 'Content-Type': 'application/octet-stream', ...headers },
          firstPart: Buffer.alloc(64 * 1024, 'a'),
        });
        expect(response.status, `${pathname} ${JSON.stringify(headers)}`).toBe(413);
        expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(response.headers.connection).toBe('close');
      }
    }
    expect((await request(base, '/blog/alpha-post')).status).toBe(200);
  });

  it('counts /api/index-notify requests before saying it is not configured, like every write route', async () => {
    const from = freshAddress();
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await postJson(base, '/api/index-notify', {}, { from })).status);
    expect(statuses).toEqual(Array(20).fill(503));
    const refused = await postJson(base, '/api/index-notify', {}, { from });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('answers unparseable bodies with 400', async () => {
    for (const body of ['{"email":', '[1,2]', '"text"', Buffer.from([0x7b, 0xff, 0x7d])]) {
      const response = await request(base, '/api/subscribe', { method: 'POST', from: freshAddress(), headers: { 'Content-Type': 'application/json' }, body });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ status: 400, title: 'Body cannot be parsed' });
    }
  });

  it('answers invalid fields with 400 naming each field', async () => {
    const response = await postJson(base, '/api/support', { email: 'nope', subject: 'Hi\r\nBcc: victim@example.com', extra: 1 }, { from: freshAddress() });
    expect(response.status).toBe(400);
    const body = response.json() as { errors: { path: string; message: string }[] };
    const paths = body.errors.map((error) => error.path).sort();
    expect(paths).toEqual(['email', 'extra', 'message', 'name', 'subject']);
    expect(body.errors.find((error) => error.path === 'name')?.message).toBe('is required');
    expect(body.errors.find((error) => error.path === 'subject')?.message).toBe('must be a single line of text');
  });

  it('answers checkouts with 503 "payments are not configured" when Stripe has no keys, never a fake success', async () => {
    for (const [path, body] of [
      ['/api/payments/checkout', { product: 'fixture-book' }],
      ['/api/payments/training/checkout', { product: 'fixture-training', session: 'spring', seats: 1 }],
      ['/api/payments/special-offer/checkout', { product: 'fixture-offer' }],
    ] as const) {
      const response = await postJson(base, path, body, { from: freshAddress() });
      expect(response.status).toBe(503);
      expect(response.json()).toMatchObject({ status: 503, detail: expect.stringContaining('Payments are not configured') });
    }
  });

  it('answers a filled honeypot as accepted, doing nothing', async () => {
    const from = freshAddress();
    const response = await postJson(base, '/api/subscribe', { email: 'bot@example.com', website: 'http://spam.example' }, { from });
    expect(response.status).toBe(202);
    expect(response.json()).toMatchObject({ status: 'pending' });
    const store = openSqliteStore(path.join(running.dataDir, 'lectern.db'));
    expect((await store.subscribers.list()).map((subscriber) => subscriber.email)).not.toContain('bot@example.com');
    await store.close();
  });

  it('answers a form post without JavaScript with a readable page, keeping the status', async () => {
    const from = freshAddress();
    const invalid = await postForm(base, '/api/support', { email: 'nope' }, { from });
    expect(invalid.status).toBe(400);
    expect(invalid.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(invalid.body).toContain('name: is required');
    for (let i = 0; i < 4; i++) await postForm(base, '/api/support', { email: 'nope' }, { from });
    const limited = await postForm(base, '/api/support', { email: 'nope' }, { from });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatch(/Try again in \d+ seconds?\./);
  });

  it('links the error page\'s "Go back" to the Referer only when it is a page of this site', async () => {
    const siteUrl = inject('siteUrl');
    const backLink = async (referer: string) => {
      const page = await postForm(base, '/api/support', { email: 'nope' }, { from: freshAddress(), headers: { Referer: referer } });
      expect(page.status).toBe(400);
      return /<a href="([^"]*)">Go back<\/a>/.exec(page.body)?.[1];
    };
    expect(await backLink('javascript:alert(1)//')).toBe('/');
    expect(await backLink('JavaScript:alert(1)')).toBe('/');
    expect(await backLink('data:text/html,<script>alert(1)</script>')).toBe('/');
    expect(await backLink('https://evil.example/support')).toBe('/');
    expect(await backLink(`//evil.example/support`)).toBe('/');
    expect(await backLink(`${siteUrl}.evil.example/support`)).toBe('/');
    expect(await backLink(`${siteUrl}/support?topic=a&b=c#form`)).toBe('/support?topic=a&amp;b=c');
  });

  it('does not let a forged X-Forwarded-For buy a fresh quota', async () => {
    const from = freshAddress();
    const statuses = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await postJson(base, '/api/subscribe', { email: 'reader@example.com' }, { from, headers: { 'X-Forwarded-For': `203.0.113.${i}` } })).status,
      );
    expect(statuses.at(-1)).toBe(429);
  });

  it('gives distinct client addresses distinct budgets', async () => {
    const [a, b] = [freshAddress(), freshAddress()];
    for (let i = 0; i < 5; i++) await postJson(base, '/api/subscribe', { email: 'reader@example.com' }, { from: a });
    expect((await postJson(base, '/api/subscribe', { email: 'reader@example.com' }, { from: a })).status).toBe(429);
    expect((await postJson(base, '/api/subscribe', { email: 'reader@example.com' }, { from: b })).status).not.toBe(429);
  });

  it('ignores a client-sent copy of the internal client-IP header', async () => {
    const from = freshAddress();
    for (let i = 0; i < 6; i++) {
      const response = await postJson(base, '/api/subscribe', { email: 'reader@example.com' }, { from, headers: { 'X-Lectern-Client-Ip': `198.51.100.${i}` } });
      if (i === 5) expect(response.status).toBe(429);
    }
  });
});

describe('write routes behind a trusted proxy', () => {
  it('counts the forwarded client when TRUST_PROXY is set', async () => {
    const { baseUrl } = await site({ TRUST_PROXY: '1' });
    const from = freshAddress();
    for (let i = 0; i < 5; i++)
      await postJson(baseUrl, '/api/subscribe', { email: 'reader@example.com' }, { from, headers: { 'X-Forwarded-For': '203.0.113.50' } });
    expect((await postJson(baseUrl, '/api/subscribe', { email: 'reader@example.com' }, { from, headers: { 'X-Forwarded-For': '203.0.113.50' } })).status).toBe(
      429,
    );
    expect(
      (await postJson(baseUrl, '/api/subscribe', { email: 'reader@example.com' }, { from, headers: { 'X-Forwarded-For': '203.0.113.51' } })).status,
    ).not.toBe(429);
  });
});

describe('IPv6 clients behind a trusted proxy', () => {
  const forwarded = (address: string) => ({ 'X-Forwarded-For': address });

  it('count a form per /56: the addresses of one customer network share one budget, another /56 of the /48 has its own', async () => {
    const { baseUrl } = await site({ TRUST_PROXY: '1' });
    const from = freshAddress();
    const statuses = [];
    // Six /64s of one /56, as one home line holds them.
    for (let subnet = 0; subnet < 6; subnet += 1) {
      const address = `2001:db8:4800:7a${subnet.toString(16).padStart(2, '0')}::${subnet + 1}`;
      statuses.push((await postJson(baseUrl, '/api/subscribe', { email: 'reader@example.com' }, { from, headers: forwarded(address) })).status);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    const otherNetwork = await postJson(baseUrl, '/api/subscribe', { email: 'reader@example.com' }, { from, headers: forwarded('2001:db8:4800:7b00::1') });
    expect(otherNetwork.status).toBe(202);
  });

  it('count a checkout per /48: twelve addresses from twelve /56s of one /48 share one budget', async () => {
    const { baseUrl } = await site({ TRUST_PROXY: '1' });
    const from = freshAddress();
    const statuses: number[] = [];
    for (let index = 0; index < 12; index += 1) {
      // Each request from another /56 (and /64) of 2001:db8:4801::/48.
      const address = `2001:db8:4801:${(index * 0x1357).toString(16)}::${index + 1}`;
      const body = { product: 'fixture-book' };
      statuses.push((await postJson(baseUrl, '/api/payments/checkout', body, { from, headers: forwarded(address) })).status);
    }
    // Payments are not configured on this server: 503 until the budget of 10 is spent.
    expect(statuses.slice(0, 10).every((status) => status === 503)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});

describe('write routes with short windows', () => {
  it('honours Retry-After: a request sent that many seconds later passes', async () => {
    // Ten-second windows; the quota is spent at once so the window cannot slide in between.
    const { baseUrl } = await site({ RATE_LIMIT_WINDOW_SCALE: String(10 / 600) });
    const from = freshAddress();
    await Promise.all(Array.from({ length: 5 }, () => postJson(baseUrl, '/api/subscribe', { email: 'not-an-email' }, { from })));
    const refused = await postJson(baseUrl, '/api/subscribe', { email: 'reader@example.com' }, { from });
    expect(refused.status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers['retry-after']) * 1000));
    expect((await postJson(baseUrl, '/api/subscribe', { email: 'reader@example.com' }, { from })).status).not.toBe(429);
  });
});

describe('write routes on Redis', () => {
  it('shares one budget between two server processes', async () => {
    await flushRedis(testRedisUrl(3));
    const [one, two] = await Promise.all([site({ REDIS_URL: testRedisUrl(3) }), site({ REDIS_URL: testRedisUrl(3) })]);
    const from = freshAddress();
    const statuses = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await postJson(i % 2 ? one.baseUrl : two.baseUrl, '/api/subscribe', { email: 'reader@example.com' }, { from })).status);
    expect(statuses.slice(0, 5)).not.toContain(429);
    expect(statuses[5]).toBe(429);
  });

  it('keeps answering, never with a 5xx, when Redis stops mid-test, and warns once', async () => {
    const redis = await startRedis();
    const running = await site({ REDIS_URL: redis.url });
    const from = freshAddress();
    // Invalid bodies: the limiter decides, and nothing else needs Redis.
    expect((await postJson(running.baseUrl, '/api/subscribe', { email: 'not-an-email' }, { from })).status).toBe(400);
    await redis.stop();
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await postJson(running.baseUrl, '/api/subscribe', { email: 'not-an-email' }, { from })).status);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(statuses).toContain(429);
    expect(running.output().match(/rate limiter: redis unavailable/g)).toHaveLength(1);
  });

  it('decides in memory when Redis hangs', async () => {
    const redis = await startRedis();
    const running = await site({ REDIS_URL: redis.url });
    const from = freshAddress();
    expect((await postJson(running.baseUrl, '/api/support', { email: 'nope' }, { from })).status).toBe(400);
    redis.pause();
    try {
      const response = await postJson(running.baseUrl, '/api/support', { email: 'nope' }, { from });
      expect(response.status).toBe(400);
      // The limiter times out, or its Redis client does first: either way memory decides and says so once.
      expect(running.output()).toMatch(/rate limiter: redis unavailable \(redis did not answer within \d+ ms\)/i);
    } finally {
      redis.resume();
      await redis.stop();
    }
  });
});

function routeKey(path: string): string {
  return {
    '/api/subscribe': 'subscribe',
    '/api/support': 'support',
    '/api/payments/checkout': 'checkout',
    '/api/payments/training/checkout': 'trainingCheckout',
    '/api/payments/special-offer/checkout': 'specialOfferCheckout',
    '/api/booking/cancel': 'bookingCancel',
    '/api/index-notify': 'indexNotify',
    '/api/bounces/postmark': 'postmarkBounces',
    '/api/subscribe/confirm': 'subscribeConfirm',
    '/api/subscribe/unsubscribe': 'unsubscribe',
  }[path] as string;
}
