import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type McpHttpHandler } from '@modelcontextprotocol/server';
import { MCP_BODY_LIMIT } from '../routes/manifest';
import { createMcpServer } from './tool-server';

/**
 * One stateless MCP exchange over a message already read and parsed, answered as JSON (no
 * session, no stream left open), whatever the revision: a 2026-07-28 message goes to the SDK's
 * per-request entry, a 2025-era one to the Streamable HTTP transport, both with a server from
 * the one factory (./tool-server.ts). The Next route runs it in place; lectern's server in its worker
 * thread (lib/server/search-thread.ts), so no call's work holds the thread that answers reads.
 */
export async function mcpExchange(request: Request, bytes: Uint8Array, message: unknown): Promise<Response> {
  const forward = new Request(request.url, { method: 'POST', headers: request.headers, body: bytes as BodyInit });
  const response = (await isLegacyRequest(forward.clone(), message)) ? await legacyExchange(forward, message) : await modernExchange(forward, message);
  // Read whole before the server closes: the exchange may end in another thread than its answer's.
  const answer = await response.arrayBuffer();
  return new Response(response.status === 202 || response.status === 204 ? null : answer, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
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
    const response = await transport.handleRequest(request, message === undefined ? undefined : { parsedBody: message });
    return new Response(await response.arrayBuffer(), { status: response.status, statusText: response.statusText, headers: response.headers });
  } finally {
    await server.close();
  }
}

let modern: McpHttpHandler | undefined;

/**
 * A 2026-07-28 message (its `_meta` envelope, `server/discover`): the SDK's per-request entry,
 * which checks the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers against the body,
 * makes a server from the same factory and answers JSON. One per process (and per thread); it
 * keeps nothing between requests. 2025-era messages never reach it (`legacy: 'reject'`): the
 * exchange above answers them.
 */
function modernExchange(request: Request, message: unknown): Promise<Response> {
  modern ??= createMcpHandler(() => createMcpServer(), { legacy: 'reject', responseMode: 'json', maxRequestBodySize: MCP_BODY_LIMIT });
  return modern.fetch(request, message === undefined ? {} : { parsedBody: message });
}
