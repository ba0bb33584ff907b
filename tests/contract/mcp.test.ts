import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postJson, request } from '../support/client';
import { get, url } from '../support/http';
import { fetchFrom, MODERN_META } from '../support/mcp';

const MCP_ACCEPT = 'application/json, text/event-stream';
const PING = { jsonrpc: '2.0', id: 1, method: 'ping' };

async function connect(from = freshAddress()): Promise<Client> {
  const client = new Client({ name: 'lectern-contract-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url('/mcp')), { fetch: fetchFrom(from) }));
  return client;
}

type Text = { type: 'text'; text: string };

describe('/mcp with the official 2.x client pinned to MCP 2026-07-28', () => {
  it('negotiates 2026-07-28 by server/discover, lists the same tools and calls search and fetch', async () => {
    const client = new ModernClient({ name: 'lectern-contract-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernTransport(new URL(url('/mcp')), { fetch: fetchFrom(freshAddress()) }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'get_post', 'list_posts', 'search', 'search_posts']);
      const found = await client.callTool({ name: 'search', arguments: { query: 'alpha' } });
      const { results } = JSON.parse((found.content as Text[])[0]!.text) as { results: { id: string }[] };
      expect(results[0]?.id).toBe('alpha-post');
      const fetched = await client.callTool({ name: 'fetch', arguments: { id: results[0]!.id } });
      expect(JSON.parse((fetched.content as Text[])[0]!.text)).toMatchObject({ id: 'alpha-post', text: await (await get('/blog/alpha-post.md')).text() });
    } finally {
      await client.close();
    }
  });
});

describe('/mcp at 2026-07-28 over HTTP', () => {
  const modern = (method: string, headers: Record<string, string>, params: object = {}) =>
    request(url('/'), '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, 'mcp-protocol-version': '2026-07-28', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: MODERN_META } }),
      from: freshAddress(),
    });

  it('answers a list with its cache hints, and checks Mcp-Method and Mcp-Name against the body (400 when they differ)', async () => {
    const list = await modern('tools/list', { 'mcp-method': 'tools/list' });
    expect(list.status).toBe(200);
    expect(list.headers['ratelimit-policy']).toBe('"mcp";q=1200;w=60');
    expect((JSON.parse(list.body) as { result: object }).result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    expect((await modern('tools/list', { 'mcp-method': 'resources/list' })).status).toBe(400);
    const call = { name: 'search', arguments: { query: 'alpha' } };
    expect((await modern('tools/call', { 'mcp-method': 'tools/call', 'mcp-name': 'search' }, call)).status).toBe(200);
    expect((await modern('tools/call', { 'mcp-method': 'tools/call', 'mcp-name': 'fetch' }, call)).status).toBe(400);
  });
});

describe('/mcp with the MCP SDK client', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
  });

  it('is a stateless server named after the site with five read-only tools, announcing no list changes', async () => {
    expect(client.getServerVersion()?.name).toBe('Fixture & Co');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'get_post', 'list_posts', 'search', 'search_posts']);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    expect(client.getServerCapabilities()?.resources?.listChanged).toBe(false);
  });

  it('search answers the connector shape: {results: [{id, title, url}]} as the first content item, JSON text, each url the canonical one (with the anchor of the matching section), each linked', async () => {
    const result = await client.callTool({ name: 'search', arguments: { query: 'alpha' } });
    expect(result.isError).toBeFalsy();
    const content = result.content as { type: 'text'; text: string }[];
    const found = JSON.parse((content[0] as Text).text) as { results: { id: string; title: string; url: string }[] };
    expect(found.results.map((hit) => hit.id)).toEqual(['alpha-post', 'gamma-post']);
    expect(found.results[0]).toMatchObject({ id: 'alpha-post', title: 'Alpha post' });
    // The same place /api/search names for the same words: the canonical URL, with the section's anchor when there is one.
    const api = (await (await get('/api/search?q=alpha')).json()) as { results: { slug: string; sectionUrl: string }[] };
    expect(found.results.map((hit) => hit.url)).toEqual(api.results.map((hit) => hit.sectionUrl));
    expect(found.results[0]?.url).toMatch(new RegExp(`^${url('/blog/alpha-post')}(#[a-z0-9-]+)?$`));
    expect(result.structuredContent).toEqual(found);
    expect(content[0]?.type).toBe('text');
    const links = (result.content as { type: string; uri?: string }[]).slice(1);
    expect(links).toEqual(found.results.map((hit) => expect.objectContaining({ type: 'resource_link', uri: hit.url })));
    // The URL is the page's canonical URL.
    const page = await (await get('/blog/alpha-post')).text();
    expect(page).toContain(`<link rel="canonical" href="${url('/blog/alpha-post')}"`);
  });

  it('fetch answers {id, title, text, url, metadata} for a search result, the text being the post’s markdown', async () => {
    const result = await client.callTool({ name: 'fetch', arguments: { id: 'alpha-post' } });
    expect(result.isError).toBeFalsy();
    const document = JSON.parse((result.content as Text[])[0]!.text) as Record<string, unknown>;
    expect(document).toEqual({
      id: 'alpha-post',
      title: 'Alpha post',
      text: await (await get('/blog/alpha-post.md')).text(),
      url: url('/blog/alpha-post'),
      metadata: expect.objectContaining({ markdownUrl: url('/blog/alpha-post.md'), tags: expect.any(Array), date: expect.any(String) }),
    });
    expect(result.structuredContent).toEqual(document);
    expect((result.content as { type: string; uri?: string }[]).slice(1)).toEqual([
      expect.objectContaining({ type: 'resource_link', uri: url('/blog/alpha-post') }),
    ]);
    for (const id of ['draft-post', 'future-post', 'no-such-post'])
      expect((await client.callTool({ name: 'fetch', arguments: { id } })).isError, id).toBe(true);
  });

  it('every other tool result names the canonical URL of each post in it, in structuredContent and as a resource_link', async () => {
    const calls = [
      { name: 'search_posts', arguments: { query: 'post' } },
      { name: 'list_posts', arguments: {} },
      { name: 'get_post', arguments: { slug: 'beta-post' } },
    ];
    for (const call of calls) {
      const result = await client.callTool(call);
      const links = (result.content as { type: string; uri?: string }[]).filter((item) => item.type === 'resource_link').map((item) => item.uri);
      const structured = JSON.stringify(result.structuredContent);
      expect(links.length, call.name).toBeGreaterThan(0);
      for (const link of links) {
        expect(link, call.name).toMatch(new RegExp(`^${url('/blog/')}[a-z-]+$`));
        expect(structured, call.name).toContain(`"${link}"`);
      }
    }
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

describe('/mcp as a connector uses it', () => {
  it('takes 200 tool calls in a minute from one address, every one answered', async () => {
    const client = await connect();
    const calls = [
      { name: 'search', arguments: { query: 'post' } },
      { name: 'fetch', arguments: { id: 'alpha-post' } },
      { name: 'search_posts', arguments: { query: 'alpha' } },
      { name: 'get_post', arguments: { slug: 'gamma-post' } },
      { name: 'list_posts', arguments: { limit: 3 } },
    ];
    const started = Date.now();
    const failures: string[] = [];
    for (let i = 0; i < 200; i++) {
      const call = calls[i % calls.length]!;
      try {
        const result = await client.callTool(call);
        if (result.isError) failures.push(`${i} ${call.name}: tool error`);
      } catch (error) {
        failures.push(`${i} ${call.name}: ${String(error)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(Date.now() - started).toBeLessThan(60_000);
    await client.close();
  }, 90_000);
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
    expect(response.headers['ratelimit-policy']).toBe('"mcp";q=1200;w=60');
    expect(response.headers.ratelimit).toMatch(/^"mcp";r=1199;t=\d+$/);
  });

  it('allows 1200 pings a minute per client (each costs 1 unit), then answers 429 problem+json with Retry-After', async () => {
    const from = freshAddress();
    const statuses: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 1200; i++) statuses.push((await ping(from)).status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // The window slides: when the run crosses a minute, the earlier minute's calls weigh less as
    // time goes on, freeing at most the quota's share of the time the run took.
    const freed = Math.ceil((1200 * (Date.now() - started)) / 60_000) + 1;
    let refused = await ping(from);
    for (let extra = 0; refused.status === 200 && extra < freed; extra++) refused = await ping(from);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused.json()).toMatchObject({ status: 429, title: 'Too many requests' });
    // Another client is not affected, and reads stay unlimited for this one.
    expect((await ping(freshAddress())).status).toBe(200);
    expect((await request(base(), '/api/search?q=alpha', { from })).status).toBe(200);
    // 1,201 calls one after another, each through the server's search thread: on a busy machine that is more than the default 30 s.
  }, 120_000);

  it('refuses a page of another origin (DNS rebinding) and accepts its own', async () => {
    const from = freshAddress();
    const foreign = await ping(from, { Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect((await ping(from, { Origin: new URL(inject('siteUrl')).origin })).status).toBe(200);
  });

  it.each(['GET', 'DELETE', 'PUT'])('answers %s with 405 and Allow naming the methods it answers', async (method) => {
    const response = await request(base(), '/mcp', { method, headers: { Accept: MCP_ACCEPT }, from: freshAddress() });
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('OPTIONS, POST');
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });

  it('answers OPTIONS with the same Allow, every method of which it answers', async () => {
    const from = freshAddress();
    const options = await request(base(), '/mcp', { method: 'OPTIONS', from });
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('OPTIONS, POST');
    expect((await ping(from)).status).toBe(200);
  });

  it('answers /mcp/ as /mcp', async () => {
    const response = await postJson(base(), '/mcp/', PING, { from: freshAddress(), headers: { Accept: MCP_ACCEPT } });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const client = await connect();
    const viaSlash = new Client({ name: 'lectern-contract-test', version: '1.0.0' });
    await viaSlash.connect(new StreamableHTTPClientTransport(new URL(url('/mcp/')), { fetch: fetchFrom(freshAddress()) }));
    expect((await viaSlash.listTools()).tools.length).toBe((await client.listTools()).tools.length);
    await Promise.all([client.close(), viaSlash.close()]);
  });

  it('refuses a JSON-RPC batch whole: none of its calls runs, and it counts once', async () => {
    const from = freshAddress();
    const batch = Array.from({ length: 45 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'search_posts', arguments: { query: 'post' } },
    }));
    const response = await postJson(base(), '/mcp', batch, { from, headers: { Accept: MCP_ACCEPT } });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(response.headers.ratelimit).toMatch(/^"mcp";r=1199;/);
  });

  it('reads a message of up to 64 KiB (MCP_BODY_LIMIT) whole and answers a longer one 413', async () => {
    const LIMIT = 64 * 1024;
    /** A ping padded in its _meta to exactly `size` bytes. */
    const padded = (size: number) => {
      const base = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping', params: { _meta: { pad: '' } } });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`);
    };
    const post = (body: string) =>
      request(base(), '/mcp', {
        method: 'POST',
        from: freshAddress(),
        headers: { Accept: MCP_ACCEPT, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
        body,
      });
    const under = await post(padded(LIMIT));
    expect(under.status).toBe(200);
    expect(under.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    const over = await post(padded(LIMIT + 1));
    expect(over.status).toBe(413);
    expect(over.headers['content-type']).toBe('application/problem+json; charset=utf-8');
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

describe('/mcp after messages it cannot take', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    request(url('/'), '/mcp', {
      method: 'POST',
      from: freshAddress(),
      headers: { Accept: MCP_ACCEPT, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...headers },
      body,
    });
  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('refuses deeply nested messages with a JSON-RPC error (400), and answers both revisions afterwards, however many came', async () => {
    const modernHeaders = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'ping' };
    const nested = [
      // 60 KB of brackets, alone and as a 2025-era call's arguments.
      deep(30_000),
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: { query: 'alpha' } } }).replace(
        '"alpha"',
        `"alpha","x":${deep(10_000)}`,
      ),
      // A 2026-07-28 ping whose _meta nests.
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { ...MODERN_META, nest: 'NEST' } } }).replace('"NEST"', deep(10_000)),
    ];
    // More than the thread's places for MCP calls (4), three times over.
    for (let round = 0; round < 4; round += 1) {
      const answers = await Promise.all(nested.map((body, index) => post(body, index === 2 ? modernHeaders : {})));
      expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400]);
      for (const answer of answers) expect(answer.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    // A message nested as deep as a real one is still taken.
    const shallow = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { a: JSON.parse(deep(20)) as unknown } } });
    expect((await post(shallow)).json()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });

    // Both revisions, whole: the 1.x client (initialize, 2025-11-25) and the 2.x client pinned to 2026-07-28.
    const client = await connect();
    const modern = new ModernClient({ name: 'lectern-contract-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new ModernTransport(new URL(url('/mcp')), { fetch: fetchFrom(freshAddress()) }));
    expect([(await client.listTools()).tools.length, (await modern.listTools()).tools.length]).toEqual([5, 5]);
    await Promise.all([client.close(), modern.close()]);
  });
});

describe('/mcp is announced', () => {
  it('in llms.txt, by a link to its documentation and its endpoint', async () => {
    const text = await (await get('/llms.txt')).text();
    expect(text).toContain(`- [MCP server](${url('/docs/api#mcp')}): Model Context Protocol server`);
    expect(text).toContain(`Endpoint: ${url('/mcp')}`);
  });

  it('in the API catalog, as an item and as an API of its own with its documentation and server card', async () => {
    const { linkset } = (await (await get('/.well-known/api-catalog')).json()) as {
      linkset: { anchor: string; item?: { href: string }[]; 'service-desc'?: { href: string; type: string }[]; 'service-doc'?: { href: string }[] }[];
    };
    const entry = linkset.find((set) => set.anchor === url('/mcp'));
    expect(entry?.['service-doc']?.[0]?.href).toBe(url('/docs/api#mcp'));
    expect(entry?.['service-desc']).toContainEqual({ href: url('/.well-known/mcp.json'), type: 'application/json' });
    expect(linkset[0]?.item?.map((item) => item.href)).toEqual(expect.arrayContaining([url('/mcp'), url('/.well-known/mcp.json'), url('/api/search')]));
  });

  it('by a server card at /.well-known/mcp.json (draft SEP-2127) that says what the server answers', async () => {
    const response = await get('/.well-known/mcp.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const card = (await response.json()) as {
      name: string;
      version: string;
      remotes: { type: string; url: string }[];
      capabilities: unknown;
      tools: { name: string }[];
    };
    const client = await connect();
    expect(card.name).toBe(client.getServerVersion()?.name);
    expect(card.version).toBe(client.getServerVersion()?.version);
    expect(card.capabilities).toEqual(client.getServerCapabilities());
    expect(card.tools.map((tool) => tool.name)).toEqual((await client.listTools()).tools.map((tool) => tool.name));
    expect(card.remotes).toEqual([{ type: 'streamable-http', url: url('/mcp') }]);
    await client.close();
    expect(await (await get('/llms.txt')).text()).toContain(`(${url('/.well-known/mcp.json')})`);
  });

  it('on the docs page, beside the write routes in the limits table', async () => {
    const html = await (await get('/docs/api')).text();
    expect(html).toContain('id="mcp"');
    const limits = html.slice(html.indexOf('id="limits"'));
    expect(limits).toMatch(/<code>\/mcp<\/code><\/td><td>1200<\/td><td>1 min<\/td>/);
    expect(limits).toMatch(/<code>\/api\/subscribe<\/code><\/td><td>5<\/td><td>10 min<\/td>/);
  });

  it('in /openapi.json, with its limit and its 429', async () => {
    const spec = (await (await get('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { description?: string; responses: Record<string, { headers?: object }> }>>;
    };
    expect(spec.paths['/mcp']?.post?.description).toContain('a budget of 1200 units per 1 minute');
    expect(spec.paths['/mcp']?.post?.description).toContain('a 50-result search_posts costs 11');
    expect(Object.keys(spec.paths['/mcp']?.post?.responses['429']?.headers ?? {})).toContain('Retry-After');
    expect(spec.paths['/api/search']?.get).toBeDefined();
  });
});
