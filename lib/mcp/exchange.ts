import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { MCP_BODY_LIMIT } from '../routes/manifest';
import { createMcpServer } from './server';

/**
 * One stateless MCP exchange over a message already read and parsed, answered as JSON (no
 * session, no stream left open). The Next route runs it in place; lectern's server in its worker
 * thread (lib/server/search-thread.ts), so no call's work holds the thread that answers reads.
 */
export async function mcpExchange(request: Request, bytes: Uint8Array, message: unknown): Promise<Response> {
  const server = createMcpServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_BODY_LIMIT,
  });
  try {
    await server.connect(transport);
    const body = new Request(request.url, { method: 'POST', headers: request.headers, body: bytes as BodyInit });
    const response = await transport.handleRequest(body, message === undefined ? undefined : { parsedBody: message });
    // Read whole before the server closes: the exchange may end in another thread than its answer's.
    const answer = await response.arrayBuffer();
    return new Response(response.status === 202 || response.status === 204 ? null : answer, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } finally {
    await server.close();
  }
}
