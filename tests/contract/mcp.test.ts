import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postJson, request } from '../support/client';
import { get, url } from '../support/http';

const MCP_ACCEPT = 'application/json, text/event-stream';
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

/** fetch over node:http from a chosen loopback address, so this file's budget is its own. */
function fetchFrom(from: string): FetchLike {
  return async (input, init = {}) => {
    const target = new URL(String(input));
    const headers = Object.fromEntries(new Headers(init.headers));
    const body = typeof init.body === 'string' ? init.body : undefined;
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const response = await request(target.origin, `${target.pathname}${target.search}`, { method: init.method ?? 'GET', headers, body, from });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    return new Response([204, 304].includes(response.status) ? null : response.body, { status: response.status, headers: responseHeaders });
  };
}

async function connect(from = freshAddress()): Promise<Client> {
  const client = new Client({ name: 'lectern-contract-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url('/mcp')), { fetch: fetchFrom(from) }));
  return client;
}

type Text = { type: 'text'; text: string };

describe('/mcp with the MCP SDK client', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('is a stateless server named after the site with three read-only tools', async () => {
    expect(client.getServerVersion()?.name).toBe('Fixture & Co');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['get_post', 'list_posts', 'search_posts']);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
  });

  it('search_posts ranks the title match first, with snippets, and finds no draft', async () => {
    const result = await client.callTool({ name: 'search_posts', arguments: { query: 'alpha' } });
    expect(result.isError).toBeFalsy();
    const found = result.structuredContent as { results: { slug: string; snippet: string; markdownUrl: string }[] };
    expect(found.results.map((entry) => entry.slug)).toEqual(['alpha-post', 'gamma-post']);
    expect(found.results[0]?.markdownUrl).toBe(url('/blog/alpha-post.md'));
    expect(JSON.parse((result.content as Text[])[0]!.text)).toEqual(found);
    const limited = await client.callTool({ name: 'search_posts', arguments: { query: 'post', limit: 1 } });
    expect((limited.structuredContent as { results: unknown[] }).results).toHaveLength(1);
    const secret = await client.callTool({ name: 'search_posts', arguments: { query: 'secret' } });
    expect((secret.structuredContent as { total: number }).total).toBe(0);
  });

  it('get_post answers the same bytes as /blog/{slug}.md', async () => {
    const result = await client.callTool({ name: 'get_post', arguments: { slug: 'escaping-post' } });
    expect(result.isError).toBeFalsy();
    const markdown = await (await get('/blog/escaping-post.md')).text();
    expect((result.content as Text[])[0]).toEqual({ type: 'text', text: markdown });
  });

  it.each(['draft-post', 'future-post', 'no-such-post', '../secret'])('get_post of %s is a tool error, not a protocol error', async (slug) => {
    const result = await client.callTool({ name: 'get_post', arguments: { slug } });
    expect(result.isError).toBe(true);
    expect((result.content as Text[])[0]?.text).toContain(`No published post has the slug "${slug}"`);
  });

  it('list_posts gives the newest posts, 10 by default', async () => {
    const all = await client.callTool({ name: 'list_posts', arguments: {} });
    expect((all.structuredContent as { posts: { slug: string }[] }).posts.map((post) => post.slug)).toEqual([
      'escaping-post',
      'beta-post',
      'gamma-post',
      'alpha-post',
    ]);
    const two = await client.callTool({ name: 'list_posts', arguments: { limit: 2 } });
    expect((two.structuredContent as { posts: { slug: string }[] }).posts.map((post) => post.slug)).toEqual(['escaping-post', 'beta-post']);
  });

  it('refuses arguments out of range as a tool error', async () => {
    for (const call of [
      { name: 'list_posts', arguments: { limit: 51 } },
      { name: 'search_posts', arguments: { query: '' } },
      { name: 'search_posts', arguments: { query: 'a'.repeat(201) } },
    ]) {
      const result = await client.callTool(call);
      expect(result.isError, JSON.stringify(call)).toBe(true);
    }
  });

  it('offers llms.txt and pricing.md as resources, the same text as their URLs', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual([url('/llms.txt'), url('/pricing.md')]);
    for (const path of ['/llms.txt', '/pricing.md']) {
      const { contents } = await client.readResource({ uri: url(path) });
      expect(contents[0]).toMatchObject({ uri: url(path), mimeType: 'text/markdown', text: await (await get(path)).text() });
    }
  });
});

describe('/mcp over HTTP', () => {
  const base = () => inject('baseUrl');
  const ping = (from: string, headers: Record<string, string> = {}) => postJson(base(), '/mcp', PING, { from, headers: { Accept: MCP_ACCEPT, ...headers } });

  it('answers a POST with JSON, not cached, with the RateLimit headers', async () => {
    const response = await ping(freshAddress());
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['ratelimit-policy']).toBe('"mcp";q=120;w=60');
    expect(response.headers.ratelimit).toMatch(/^"mcp";r=119;t=\d+$/);
  });

  it('allows 120 requests a minute per client, then answers 429 problem+json with Retry-After', async () => {
    const from = freshAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) statuses.push((await ping(from)).status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const refused = await ping(from);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.json()).toMatchObject({ status: 429, title: 'Too many requests' });
    // Another client is not affected, and reads stay unlimited for this one.
    expect((await ping(freshAddress())).status).toBe(200);
    expect((await request(base(), '/api/search?q=alpha', { from })).status).toBe(200);
  });

  it('refuses a page of another origin (DNS rebinding) and accepts its own', async () => {
    const from = freshAddress();
    const foreign = await ping(from, { Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect((await ping(from, { Origin: new URL(inject('siteUrl')).origin })).status).toBe(200);
  });

  it.each(['GET', 'DELETE', 'PUT'])('answers %s with 405 and Allow: POST', async (method) => {
    const response = await request(base(), '/mcp', { method, headers: { Accept: MCP_ACCEPT }, from: freshAddress() });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('answers malformed posts with 4xx, never 5xx', async () => {
    const from = freshAddress();
    const cases = [
      await request(base(), '/mcp', {
        method: 'POST',
        from,
        headers: { Accept: MCP_ACCEPT, 'Content-Type': 'application/json', 'Content-Length': '5' },
        body: '{nope',
      }),
      await request(base(), '/mcp', { method: 'POST', from, headers: { Accept: MCP_ACCEPT, 'Content-Type': 'text/plain', 'Content-Length': '2' }, body: '{}' }),
      await postJson(base(), '/mcp', PING, { from, headers: { Accept: 'text/html' } }),
      await postJson(base(), '/mcp', { hello: 'world' }, { from, headers: { Accept: MCP_ACCEPT } }),
      await request(base(), '/mcp', {
        method: 'POST',
        from,
        headers: { Accept: MCP_ACCEPT, 'Content-Type': 'application/json', 'Content-Length': String(70 * 1024) },
        body: 'x'.repeat(70 * 1024),
      }),
    ];
    expect(cases.map((response) => response.status)).toEqual([400, 415, 406, 400, 413]);
  });
});

describe('/mcp is announced', () => {
  it('in llms.txt, by a link to its documentation and its endpoint', async () => {
    const text = await (await get('/llms.txt')).text();
    expect(text).toContain(`- [MCP server](${url('/docs/api#mcp')}): Model Context Protocol server`);
    expect(text).toContain(`Endpoint: ${url('/mcp')}`);
  });

  it('in the API catalog, as an API of its own with its documentation', async () => {
    const { linkset } = (await (await get('/.well-known/api-catalog')).json()) as { linkset: { anchor: string; 'service-doc'?: { href: string }[] }[] };
    const entry = linkset.find((set) => set.anchor === url('/mcp'));
    expect(entry?.['service-doc']?.[0]?.href).toBe(url('/docs/api#mcp'));
  });

  it('on the docs page, beside the write routes in the limits table', async () => {
    const html = await (await get('/docs/api')).text();
    expect(html).toContain('id="mcp"');
    const limits = html.slice(html.indexOf('id="limits"'));
    expect(limits).toMatch(/<code>\/mcp<\/code><\/td><td>120<\/td><td>1 min<\/td>/);
    expect(limits).toMatch(/<code>\/api\/subscribe<\/code><\/td><td>5<\/td><td>10 min<\/td>/);
  });

  it('in /openapi.json, with its limit and its 429', async () => {
    const spec = (await (await get('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { description?: string; responses: Record<string, { headers?: object }> }>>;
    };
    expect(spec.paths['/mcp']?.post?.description).toContain('120 requests per 1 minute');
    expect(Object.keys(spec.paths['/mcp']?.post?.responses['429']?.headers ?? {})).toContain('Retry-After');
    expect(spec.paths['/api/search']?.get).toBeDefined();
  });
});
