import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { MCP_PROTOCOL_VERSIONS } from '@/lib/agents/mcp-names';
import { otherRouteLimits } from '@/lib/limits/table';
import { mcpExchange } from '@/lib/mcp/exchange';
import { handleMcpPost, mcpMethodNotAllowed, mcpOptions } from '@/lib/mcp/http';
import { MCP_BODY_LIMIT, MCP_MAX_DEPTH } from '@/lib/routes/manifest';
import { settings } from '@/lib/settings';
import { testServices } from '../../support/services';
import { freshClient, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const { limiter } = testServices().services;
const mcpPost = (request: Request) => handleMcpPost(request, limiter, settings(), mcpExchange);
const LIMIT = otherRouteLimits.mcp;

const MCP_URL = 'http://localhost:3000/mcp';
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

/** A JSON-RPC post as an MCP client sends it, from one client address. */
function rpc(client: string, headers: Record<string, string> = {}, body = PING): Request {
  return new Request(MCP_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-real-ip': client, ...headers },
    body,
  });
}

/** The SDK's client, its requests handed straight to the handler. */
function handlerFetch(client: string): FetchLike {
  return async (input, init = {}) => {
    const request = new Request(String(input), { ...init, headers: { ...Object.fromEntries(new Headers(init.headers)), 'x-real-ip': client } });
    return request.method === 'POST' ? mcpPost(request) : mcpMethodNotAllowed(request);
  };
}

describe('POST /mcp', () => {
  it('holds a whole MCP exchange with the SDK client: initialize, then a tool call', async () => {
    const client = new Client({ name: 'lectern-unit-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { fetch: handlerFetch(freshClient()) }));
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'get_post', 'list_posts', 'search', 'search_posts']);
    await client.close();
  });

  it('speaks 2026-07-28 to the 2.x SDK client pinned to it: server/discover, tools/list, a search call', async () => {
    const client = new ModernClient({ name: 'lectern-unit-test', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernTransport(new URL(MCP_URL), { fetch: handlerFetch(freshClient()) }));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    // server/discover names the revisions negotiated by it; 2025-era clients negotiate by initialize.
    expect(client.getDiscoverResult()?.supportedVersions).toEqual(['2026-07-28']);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'get_post', 'list_posts', 'search', 'search_posts']);
    const found = await client.callTool({ name: 'search', arguments: { query: 'alpha' } });
    expect(found.isError).toBeFalsy();
    expect((found.structuredContent as { results: { id: string }[] }).results[0]?.id).toBe('alpha-post');
    await client.close();
  });

  it('answers a 2026-07-28 list with its cache hints, and a 2025-era list without them', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const modern = await mcpPost(
      rpc(
        freshClient(),
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
        JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } }),
      ),
    );
    expect(modern.status).toBe(200);
    expect(((await modern.json()) as { result: object }).result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    const legacy = await mcpPost(rpc(freshClient(), { 'mcp-protocol-version': '2025-11-25' }, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })));
    const { result } = (await legacy.json()) as { result: Record<string, unknown> };
    expect(result.tools).toHaveLength(5);
    expect(result).not.toHaveProperty('ttlMs');
  });

  it('answers JSON with the limit headers and no caching', async () => {
    const response = await mcpPost(rpc(freshClient()));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('ratelimit-policy')).toBe(`"mcp";q=${LIMIT.requests};w=${LIMIT.windowSeconds}`);
    expect(response.headers.get('cache-control')).toContain('no-store');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('refuses a web page of another origin, and takes one of its own', async () => {
    const foreign = await mcpPost(rpc(freshClient(), { origin: 'http://evil.example' }));
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect((await mcpPost(rpc(freshClient(), { origin: 'http://localhost:3000' }))).status).toBe(200);
  });

  it('counts every call against the per-address limit, then answers 429 with Retry-After', async () => {
    const client = freshClient();
    const started = Date.now();
    for (let call = 0; call < LIMIT.requests; call += 1) expect((await mcpPost(rpc(client))).status).toBe(200);
    // The window slides: a run that crosses a window's end frees at most the quota's share of the time it took.
    const freed = Math.ceil((LIMIT.requests * (Date.now() - started)) / (LIMIT.windowSeconds * 1000)) + 1;
    let refused = await mcpPost(rpc(client));
    for (let extra = 0; refused.status === 200 && extra < freed; extra += 1) refused = await mcpPost(rpc(client));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await mcpPost(rpc(freshClient()))).status).toBe(200);
  });

  it('prices each call by its work: 50-result searches spend the budget 11 units each, while tools/list still fits', async () => {
    const client = freshClient();
    const search = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_posts', arguments: { query: 'alpha beta gamma', limit: 50 } },
    });
    const first = await mcpPost(rpc(client, {}, search));
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(new RegExp(`^"mcp";r=${LIMIT.requests - 11};t=\\d+$`));
    let answered = 1;
    while ((await mcpPost(rpc(client, {}, search))).status === 200) answered += 1;
    // 109 fit in 1,200 units (a few more if the window turned meanwhile).
    expect(answered).toBeGreaterThanOrEqual(Math.floor(LIMIT.requests / 11));
    expect(answered).toBeLessThan(Math.floor(LIMIT.requests / 11) + 5);
    // What is left (under 11 units) still takes a cheap call.
    const list = await mcpPost(rpc(client, {}, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })));
    expect(list.status).toBe(200);
  });

  it('refuses a JSON-RPC batch before any of its calls runs, and counts it once', async () => {
    const client = freshClient();
    const calls = Array.from({ length: 3 }, (_, id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'search_posts', arguments: { query: 'alpha' } },
    }));
    const response = await mcpPost(rpc(client, {}, JSON.stringify(calls)));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(response.headers.get('ratelimit')).toMatch(new RegExp(`^"mcp";r=${LIMIT.requests - 1};`));
  });

  it('refuses a message nested deeper than MCP_MAX_DEPTH (400, JSON-RPC), counted once; brackets inside strings do not count', async () => {
    const nest = (depth: number) => `${'{"a":'.repeat(depth - 1)}[]${'}'.repeat(depth - 1)}`;
    const ping = (meta: string) => `{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":${meta}}}`;
    // The message's own object and its params are two levels: _meta may nest the rest.
    const deepest = await mcpPost(rpc(freshClient(), {}, ping(nest(MCP_MAX_DEPTH - 2))));
    expect(await deepest.json()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
    const client = freshClient();
    const deeper = await mcpPost(rpc(client, {}, ping(nest(MCP_MAX_DEPTH - 1))));
    expect(deeper.status).toBe(400);
    expect(await deeper.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining(`${MCP_MAX_DEPTH}`) } });
    expect(deeper.headers.get('ratelimit')).toMatch(new RegExp(`^"mcp";r=${LIMIT.requests - 1};`));
    const brackets = JSON.stringify({ text: `\\"${'[{'.repeat(200)}` });
    expect(await (await mcpPost(rpc(freshClient(), {}, ping(brackets)))).json()).toEqual({ jsonrpc: '2.0', id: 4, result: {} });
  });

  it('reads a message up to MCP_BODY_LIMIT and refuses a longer one with 413', async () => {
    const padded = (size: number) => {
      const base = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: '' } } });
      return base.replace('"pad":""', `"pad":"${'x'.repeat(size - base.length)}"`);
    };
    const under = await mcpPost(rpc(freshClient(), {}, padded(MCP_BODY_LIMIT)));
    expect(under.status).toBe(200);
    expect(await under.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const over = await mcpPost(rpc(freshClient(), {}, padded(MCP_BODY_LIMIT + 1)));
    expect(over.status).toBe(413);
    expect(over.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  });

  it('answers a malformed JSON-RPC body as a JSON-RPC error, not a server error', async () => {
    const response = await mcpPost(rpc(freshClient(), {}, '{"jsonrpc": "2.0", '));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });
});

describe('any other method on /mcp', () => {
  it('is 405 with the two methods it answers in Allow, saying why', async () => {
    const response = mcpMethodNotAllowed(new Request(MCP_URL));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('OPTIONS, POST');
    expect((await response.json()).detail).toContain('send each JSON-RPC message with POST');
  });

  it('OPTIONS names the same two methods', () => {
    const response = mcpOptions();
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('OPTIONS, POST');
  });
});

describe('the MCP revisions named by the server card and the API catalog', () => {
  it('are 2026-07-28 and every 2025-era revision the SDK negotiates by initialize', () => {
    expect(MCP_PROTOCOL_VERSIONS).toEqual(['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS]);
  });
});
