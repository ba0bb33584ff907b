import { readBody } from '../http/body';
import { cacheHeaders } from '../http/cache';
import { problem } from '../http/problem';
import { admit } from '../limits/admission';
import { MCP_BODY_LIMIT, MCP_MAX_DEPTH } from '../routes/manifest';
import type { Limiter } from '../limits';
import { platformHeadersOf } from '../http/platform-headers';
import { MCP_ALLOW, MCP_PATH } from '../agents/mcp-names';
import { mcpCost } from './cost';
import type { Settings } from '../settings';

/**
 * An Origin header names the web page that made the request. MCP clients are
 * programs and send none; a page of another origin (say one whose host name
 * was re-pointed at a server on the reader's machine: DNS rebinding) is
 * refused, as the MCP transport asks. The site's own pages may call it.
 */
function foreignOrigin(request: Request, siteUrl: string): boolean {
  const origin = request.headers.get('origin');
  return origin !== null && origin !== new URL(siteUrl).origin;
}

/** A JSON-RPC error answered before the MCP server sees the message (the transport answers its own the same way). */
export function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string>): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }), {
    status,
    headers: { ...headers, 'Content-Type': 'application/json' },
  });
}

/**
 * Whether the JSON text nests arrays and objects deeper than `max` (outside strings), found in
 * one pass over the bytes without parsing: `"`, `\` and the brackets are single bytes in UTF-8,
 * never part of another character.
 */
export function nestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index];
    if (inString) {
      if (byte === 0x5c) index += 1;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth -= 1;
  }
  return false;
}

/** The body as JSON, or undefined when it is not (the transport then answers its parse error). */
function parsed(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

/** How an exchange is run: in place (`mcpExchange`), or by lectern's server in its worker thread. */
export type McpExchange = (request: Request, bytes: Uint8Array, message: unknown) => Promise<Response>;

/**
 * POST /mcp: the body (at most MCP_BODY_LIMIT, nested at most MCP_MAX_DEPTH, one message: a JSON-RPC
 * batch is refused, so each call is counted once and does one call's work), then the client address and the per-IP limit
 * (as the write routes, every call counts, priced by its work: `mcpCost`), the Origin check, then
 * one stateless MCP exchange (`exchange`: ./exchange.ts in place, or lectern's server's thread).
 * The route hands it the process's limiter.
 */
export async function handleMcpPost(
  request: Request,
  limiter: Limiter,
  settings: Pick<Settings, 'site' | 'deployment'>,
  exchange: McpExchange,
): Promise<Response> {
  const bytes = await readBody(request, MCP_BODY_LIMIT);
  // Too deep is refused unparsed: no message needs it, and a structured clone of it to the search thread would overflow.
  const tooDeep = bytes !== 'too-large' && nestedDeeperThan(bytes, MCP_MAX_DEPTH);
  const message = bytes === 'too-large' || tooDeep ? undefined : parsed(bytes);
  const admission = await admit(request, 'mcp', limiter, settings.deployment, Array.isArray(message) ? 1 : mcpCost(message));
  const headers = { ...cacheHeaders('write'), ...admission.headers, ...platformHeadersOf(request, 'application/json', settings) };
  if (!admission.ok)
    return problem(admission.refusal.problem, admission.refusal.detail, { headers: { ...headers, ...admission.refusal.headers }, cache: 'write' });
  if (foreignOrigin(request, settings.site.url))
    return problem('forbidden-origin', `${MCP_PATH} does not answer web pages of other origins.`, { headers, cache: 'write' });
  if (bytes === 'too-large')
    return problem('payload-too-large', `An MCP message may be at most ${MCP_BODY_LIMIT / 1024} KiB.`, {
      headers: { ...headers, Connection: 'close' },
      cache: 'write',
    });
  // A verified agent's identity is recorded with its request (README, "Verified agents").
  if (admission.agent)
    console.info(`mcp ${JSON.stringify((message as { method?: unknown } | undefined)?.method ?? null)} from verified agent ${admission.agent}`);
  if (tooDeep) return jsonRpcError(400, -32600, `Invalid Request: an MCP message may nest arrays and objects at most ${MCP_MAX_DEPTH} deep.`, headers);
  if (Array.isArray(message))
    return jsonRpcError(
      400,
      -32600,
      'Invalid Request: batches are not accepted; send one JSON-RPC message per POST (MCP 2025-06-18 and later have no batches).',
      headers,
    );
  const response = await exchange(request, bytes, message);
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
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
