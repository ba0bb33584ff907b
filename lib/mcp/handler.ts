import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpHttpHandler } from '@modelcontextprotocol/server';
import { readBody } from '../http/body';
import { cacheHeaders } from '../http/cache';
import { problem } from '../http/problem';
import { admit } from '../limits/admission';
import { MCP_BODY_LIMIT } from '../routes/manifest';
import type { Limiter } from '../limits';
import { platformHeadersOf } from '../write-routes/handler';
import { MCP_ALLOW, MCP_PATH } from '../agents/mcp-names';
import { createMcpServer } from './server';
import { settings } from '../settings';

/**
 * An Origin header names the web page that made the request. MCP clients are
 * programs and send none; a page of another origin (say one whose host name
 * was re-pointed at a server on the reader's machine: DNS rebinding) is
 * refused, as the MCP transport asks. The site's own pages may call it.
 */
function foreignOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  return origin !== null && origin !== new URL(settings().site.url).origin;
}

/** A JSON-RPC error answered before the MCP server sees the message (the transport answers its own the same way). */
function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string>): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), {
    status,
    headers: { ...headers, 'Content-Type': 'application/json' },
  });
}

/** The body as JSON, or undefined when it is not (the transport then answers its parse error). */
function parsed(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * POST /mcp: the client address and the per-IP limit (as the write routes,
 * every call counts), the Origin check, the body (at most MCP_BODY_LIMIT, one
 * message: a JSON-RPC batch is refused, so each call is counted once and does
 * one call's work), then one stateless MCP exchange answered as JSON (no
 * session, no stream left open). The route hands it the process's limiter.
 */
export async function handleMcpPost(request: Request, limiter: Limiter): Promise<Response> {
  const admission = await admit(request, 'mcp', limiter, settings().deployment);
  const headers = { ...cacheHeaders('write'), ...admission.headers, ...platformHeadersOf(request, 'application/json') };
  if (!admission.ok)
    return problem(admission.refusal.problem, admission.refusal.detail, { headers: { ...headers, ...admission.refusal.headers }, cache: 'write' });
  if (foreignOrigin(request)) return problem('forbidden-origin', `${MCP_PATH} does not answer web pages of other origins.`, { headers, cache: 'write' });

  const bytes = await readBody(request, MCP_BODY_LIMIT);
  if (bytes === 'too-large')
    return problem('payload-too-large', `An MCP message may be at most ${MCP_BODY_LIMIT / 1024} KiB.`, {
      headers: { ...headers, Connection: 'close' },
      cache: 'write',
    });
  const message = parsed(bytes);
  // A verified agent's identity is recorded with its request (README, "Verified agents").
  if (admission.agent)
    console.info(`mcp ${JSON.stringify((message as { method?: unknown } | undefined)?.method ?? null)} from verified agent ${admission.agent}`);
  if (Array.isArray(message))
    return jsonRpcError(
      400,
      -32600,
      'Invalid Request: batches are not accepted; send one JSON-RPC message per POST (MCP 2025-06-18 and later have no batches).',
      headers,
    );

  const forward = new Request(request.url, { method: 'POST', headers: request.headers, body: bytes as BodyInit });
  const response = (await isLegacyRequest(forward.clone(), message)) ? await legacyExchange(forward, message) : await modernExchange(forward, message);
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}

/**
 * A 2025-era message (an `initialize`, or a call with an `MCP-Protocol-Version` of 2025 or none):
 * one stateless exchange on the Streamable HTTP transport, answered as JSON, as lectern has
 * always answered it.
 */
async function legacyExchange(request: Request, message: unknown): Promise<Response> {
  const server = createMcpServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_BODY_LIMIT,
  });
  try {
    await server.connect(transport);
    return await transport.handleRequest(request, message === undefined ? undefined : { parsedBody: message });
  } finally {
    await server.close();
  }
}

let modern: McpHttpHandler | undefined;

/**
 * A 2026-07-28 message (its `_meta` envelope, `server/discover`): the SDK's per-request entry,
 * which checks the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers against the body,
 * makes a server from the same factory and answers JSON. One per process; it keeps nothing
 * between requests. 2025-era messages never reach it (`legacy: 'reject'`): the exchange above
 * answers them.
 */
function modernExchange(request: Request, message: unknown): Promise<Response> {
  modern ??= createMcpHandler(() => createMcpServer(), { legacy: 'reject', responseMode: 'json', maxRequestBodySize: MCP_BODY_LIMIT });
  return modern.fetch(request, message === undefined ? {} : { parsedBody: message });
}

/** OPTIONS: the methods /mcp answers, and nothing else. */
export function mcpOptions(): Response {
  return new Response(null, { status: 204, headers: { Allow: MCP_ALLOW, ...cacheHeaders('write') } });
}

/** Any other method: a stateless server offers no stream to GET and no session to DELETE. */
export function mcpMethodNotAllowed(request: Request): Response {
  return problem(
    'method-not-allowed',
    `${MCP_PATH} is a stateless MCP endpoint (Streamable HTTP): send each JSON-RPC message with POST. ${request.method} is not supported.`,
    {
      headers: { Allow: MCP_ALLOW },
      cache: 'write',
    },
  );
}
