import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { config } from '../config';
import { MCP_BODY_LIMIT } from '../routes/manifest';
import { cacheHeaders } from '../http/cache';
import { problem } from '../http/problem';
import { deployment } from '../deploy';
import { admit } from '../limits/admission';
import { limiter } from '../services';
import { MCP_PATH } from '../agents/mcp-names';
import { createMcpServer } from './server';

/**
 * An Origin header names the web page that made the request. MCP clients are
 * programs and send none; a page of another origin (say one whose host name
 * was re-pointed at a server on the reader's machine: DNS rebinding) is
 * refused, as the MCP transport asks. The site's own pages may call it.
 */
function foreignOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  return origin !== null && origin !== new URL(config().siteUrl).origin;
}

/**
 * POST /mcp: the client address and the per-IP limit (as the write routes,
 * every call counts), the Origin check, then one stateless MCP exchange
 * answered as JSON (no session, no stream left open).
 */
export async function handleMcpPost(request: Request): Promise<Response> {
  const admission = await admit(request, 'mcp', limiter(), deployment());
  const headers = { ...cacheHeaders('write'), ...admission.headers };
  if (!admission.ok)
    return problem(admission.refusal.problem, admission.refusal.detail, { headers: { ...headers, ...admission.refusal.headers }, cache: 'write' });
  if (foreignOrigin(request)) return problem('forbidden-origin', `${MCP_PATH} does not answer web pages of other origins.`, { headers, cache: 'write' });

  const server = createMcpServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_BODY_LIMIT,
  });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    const merged = new Headers(response.headers);
    for (const [name, value] of Object.entries(headers)) merged.set(name, value);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
  } finally {
    await server.close();
  }
}

/** Any other method: a stateless server offers no stream to GET and no session to DELETE. */
export function mcpMethodNotAllowed(request: Request): Response {
  return problem(
    'method-not-allowed',
    `${MCP_PATH} is a stateless MCP endpoint (Streamable HTTP): send each JSON-RPC message with POST. ${request.method} is not supported.`,
    {
      headers: { Allow: 'POST' },
      cache: 'write',
    },
  );
}
