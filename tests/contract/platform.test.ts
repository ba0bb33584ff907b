import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PLATFORM_DOCUMENT_POLICY } from '@/lib/http/platform-headers';
import { freshAddress, postJson, request, type RawResponse } from '../support/client';
import { contractSites } from '../support/contract-sites';
import { startPlatformEdge, type PlatformEdge } from '../support/platform-edge';
import { fetchFrom } from '../support/mcp';
import { flushRedis, testRedisUrl } from '../support/redis';
import { startSmtp } from '../support/smtp';
import { startUpstashStandIn, type UpstashStandIn } from '../support/upstash';

/**
 * The built site run the way Next.js sites are usually deployed: `next start`
 * without lectern's server (PLATFORM_MODE), two instances behind a stand-in of
 * the platform's edge, limits and store on the Upstash stand-in, mail over SMTP.
 * Its answers are compared with lectern's server (`npm start`) on the same build.
 */
const REDIS_DB = 9;
const site = contractSites();

let upstash: UpstashStandIn;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let edge: PlatformEdge;

function platformEnv(): Record<string, string> {
  return {
    PLATFORM_MODE: '1',
    UPSTASH_REDIS_REST_URL: upstash.url,
    UPSTASH_REDIS_REST_TOKEN: upstash.token,
    SMTP_URL: smtp.url,
    CLIENT_IP_HEADER: 'x-real-ip',
  };
}

beforeAll(async () => {
  await flushRedis(testRedisUrl(REDIS_DB));
  upstash = await startUpstashStandIn(testRedisUrl(REDIS_DB));
  smtp = await startSmtp();
  const [one, two] = await Promise.all([site({ nextStart: true, extraEnv: platformEnv() }), site({ nextStart: true, extraEnv: platformEnv() })]);
  edge = await startPlatformEdge([one.baseUrl, two.baseUrl]);
});

afterAll(async () => {
  await edge?.close();
  await upstash?.close();
  await smtp?.close();
});

const servers = [
  ["lectern's server (npm start)", () => inject('baseUrl')],
  ['a platform host (next start, PLATFORM_MODE)', () => edge.url],
] as const;

describe.each(servers)('the client address under %s', (_, baseUrl) => {
  it('is one budget per client, whatever it says its address is', async () => {
    const from = freshAddress();
    const forgeries: Record<string, string>[] = [
      {},
      { 'X-Lectern-Client-Ip': '198.51.100.1', 'X-Lectern-Client-Ip-Proof': Buffer.alloc(32, 1).toString('base64url') },
      { 'X-Forwarded-For': '198.51.100.2' },
      { 'X-Real-IP': '198.51.100.3' },
      { 'X-Forwarded-For': '198.51.100.4, 198.51.100.5', 'X-Real-IP': '198.51.100.6' },
      { 'X-Lectern-Client-Ip': '198.51.100.7' },
      { 'X-Forwarded-For': '198.51.100.8' },
      { 'X-Real-IP': '198.51.100.9' },
    ];
    const statuses = [];
    for (const [index, headers] of forgeries.entries()) {
      statuses.push((await postJson(baseUrl(), '/api/subscribe', { email: `forger-${index}@example.com` }, { from, headers })).status);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429, 429]);
    // Another client still has its whole budget.
    expect((await postJson(baseUrl(), '/api/subscribe', { email: 'other@example.com' }, { from: freshAddress() })).status).toBe(202);
  });
});

describe.each(servers)('training crawlers under %s', (_, baseUrl) => {
  const gptBot = { 'User-Agent': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)' };

  it('get 403 for a post, its markdown and a feed, and 200 for robots.txt, the licence and llms.txt', async () => {
    for (const pathname of ['/blog/alpha-post', '/blog/alpha-post.md', '/api/rss']) {
      const refused = await request(baseUrl(), pathname, { headers: gptBot });
      expect(refused.status, pathname).toBe(403);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(refused.json()).toMatchObject({ status: 403, title: 'Training crawlers refused' });
      expect((await request(baseUrl(), pathname)).status, pathname).toBe(200);
    }
    for (const pathname of ['/robots.txt', '/license.xml', '/llms.txt'])
      expect((await request(baseUrl(), pathname, { headers: gptBot })).status, pathname).toBe(200);
  });
});

describe.each(servers)('/mcp under %s', (_, baseUrl) => {
  type Text = { type: 'text'; text: string };
  type Calls = {
    listTools(): Promise<{ tools: { name: string }[] }>;
    callTool(call: { name: string; arguments: Record<string, unknown> }): Promise<object>;
  };

  /** The same use by either client: the five tools, a search and a fetch of its first result. */
  async function listSearchFetch(client: Calls) {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'get_post', 'list_posts', 'search', 'search_posts']);
    const found = await client.callTool({ name: 'search', arguments: { query: 'alpha' } });
    const { results } = JSON.parse((found as { content: Text[] }).content[0]!.text) as { results: { id: string }[] };
    expect(results[0]?.id).toBe('alpha-post');
    const fetched = await client.callTool({ name: 'fetch', arguments: { id: results[0]!.id } });
    expect(JSON.parse((fetched as { content: Text[] }).content[0]!.text)).toMatchObject({
      id: 'alpha-post',
      url: expect.stringMatching(/\/blog\/alpha-post$/),
    });
  }

  it('answers the official 2.x client pinned to 2026-07-28', async () => {
    const client = new ModernClient({ name: 'lectern-contract-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernTransport(new URL('/mcp', baseUrl()), { fetch: fetchFrom(freshAddress()) }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      await listSearchFetch(client);
    } finally {
      await client.close();
    }
  });

  it('answers the 1.x client (2025-11-25)', async () => {
    const client = new Client({ name: 'lectern-contract-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', baseUrl()), { fetch: fetchFrom(freshAddress()) }));
    try {
      await listSearchFetch(client);
    } finally {
      await client.close();
    }
  });
});

describe('a platform host (next start, PLATFORM_MODE)', () => {
  it("shares one limit between its instances, with the same 429 as lectern's server", async () => {
    const from = freshAddress();
    const answers: RawResponse[] = [];
    // The edge takes turns: the posts alternate between the two instances.
    for (let i = 0; i < 6; i += 1)
      answers.push(await postJson(edge.url, '/api/support', { name: 'N', email: `shared-${i}@example.com`, subject: 'S', message: 'M' }, { from }));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202, 429]);
    const refused = answers[5]!;
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers.ratelimit).toMatch(/^"support";r=0;t=\d+$/);
    expect(refused.headers['cache-control']).toBe('no-store');
  });

  it('keeps what was posted on Upstash and sends its mail over SMTP', async () => {
    const email = `platform-${Date.now()}@example.com`;
    expect((await postJson(edge.url, '/api/subscribe', { email }, { from: freshAddress() })).status).toBe(202);
    const mail = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    expect(mail.subject).toMatch(/confirm/i);
    expect(upstash.requests()).toBeGreaterThan(0);
    // The same address again is known to the store, whichever instance answers.
    const again = await postJson(edge.url, '/api/subscribe', { email }, { from: freshAddress() });
    expect(again.status).toBe(202);
  });

  const security = ['x-content-type-options', 'referrer-policy', 'permissions-policy', 'x-frame-options', 'cross-origin-opener-policy'];
  const pages = ['/', '/blog', '/pricing', '/docs/api'];
  const reads = [
    '/api/blog',
    '/llms.txt',
    '/robots.txt',
    '/api/rss',
    '/blog/alpha-post.md',
    '/blog/alpha-post/index.md',
    '/.well-known/api-catalog',
    '/openapi.json',
    '/license.xml',
  ];

  it.each([...pages, ...reads])("answers %s as lectern's server does, with the same security headers", async (pathname) => {
    const [ours, platform] = await Promise.all([request(inject('baseUrl'), pathname), request(edge.url, pathname)]);
    expect(platform.status).toBe(ours.status);
    expect(platform.headers['content-type']).toBe(ours.headers['content-type']);
    for (const name of security) expect(platform.headers[name], name).toBe(ours.headers[name]);
    // The site's terms (IETF AIPREF) on content, the same on both.
    expect(platform.headers['content-usage']).toBe(ours.headers['content-usage']);
    if (reads.includes(pathname)) {
      expect(platform.headers['content-security-policy']).toBe(ours.headers['content-security-policy']);
      expect(platform.headers['cache-control']).toBe(ours.headers['cache-control']);
      expect(platform.headers['access-control-allow-origin']).toBe(ours.headers['access-control-allow-origin']);
      expect(platform.body).toBe(ours.body);
    } else {
      // A page's policy there allows inline elements instead of listing their hashes; every other rule is the same.
      expect(platform.headers['content-security-policy']).toBe(PLATFORM_DOCUMENT_POLICY);
      const rest = (policy: string | undefined) => (policy ?? '').split('; ').filter((rule) => !/^(script|style)-src /.test(rule));
      expect(rest(platform.headers['content-security-policy'] as string)).toEqual(rest(ours.headers['content-security-policy'] as string));
    }
  });

  it.each([
    ['a browser', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'text/html; charset=utf-8'],
    ['an agent', 'text/markdown, text/html;q=0.5', 'text/markdown; charset=utf-8'],
  ])("negotiates a post for %s as lectern's server does, with Vary: Accept and the same caching", async (_, accept, type) => {
    const headers = { Accept: accept };
    const [ours, platform] = await Promise.all([
      request(inject('baseUrl'), '/blog/alpha-post', { headers }),
      request(edge.url, '/blog/alpha-post', { headers }),
    ]);
    for (const answer of [ours, platform]) {
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe(type);
      expect(
        String(answer.headers.vary)
          .split(/,\s*/)
          .map((field) => field.toLowerCase()),
      ).toContain('accept');
    }
    expect(platform.headers['cache-control']).toBe(ours.headers['cache-control']);
    if (type.startsWith('text/markdown')) expect(platform.body).toBe(ours.body);
    else expect(platform.headers.link).toBe(ours.headers.link);
  });

  it('refuses to start with the embedded store, the outbox folder or no client address, naming each', async () => {
    const started = site({ nextStart: true, extraEnv: { PLATFORM_MODE: '1', MAIL_OUTBOX_DIR: '/tmp/outbox' } });
    await expect(started).rejects.toThrow(
      /exited 1[\s\S]*PLATFORM_MODE is set[\s\S]*UPSTASH_REDIS_REST_URL[\s\S]*SMTP_URL[\s\S]*MAIL_OUTBOX_DIR[\s\S]*CLIENT_IP_HEADER/,
    );
  });
});
