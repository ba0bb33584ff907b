import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { MCP_PATH } from '../agents/mcp-names';
import type { Limiter } from '../limits';
import { handleMcpPost, jsonRpcError } from '../mcp/http';
import type { Settings } from '../settings';
import { busyResponse, JobNotSendableError, ThreadBusyError, type McpAnswer, type SearchThread } from './search-thread';

/** A POST lectern's server answers itself (with the client address recorded), or undefined to hand it to Next. */
export type OwnPosts = (req: IncomingMessage, pathname: string) => Promise<Response> | undefined;

/** The request as a Fetch `Request`, its body streamed (the handler reads at most its limit of it). */
function webRequest(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const init: RequestInit & { duplex: 'half' } = { method: 'POST', headers, body: Readable.toWeb(req) as ReadableStream, duplex: 'half' };
  return new Request(new URL(req.url ?? '/', 'http://localhost'), init);
}

const responseOf = (answer: McpAnswer) =>
  new Response(answer.status === 202 || answer.status === 204 ? null : (answer.body as BodyInit), { status: answer.status, headers: answer.headers });

/**
 * POST /mcp under lectern's server: the handler of lib/mcp/http.ts (body, client address and
 * priced limit, Origin) runs here, and the MCP exchange itself in the search thread
 * (./search-thread.ts), so no call's work holds the thread that answers reads. When MCP_WAITING
 * calls already wait for the thread, a call is refused before any of its work (503, Retry-After);
 * one that cannot be handed to the thread is a JSON-RPC error (400), its place freed.
 */
export function mcpPosts(thread: SearchThread, limiter: () => Limiter, settings: Pick<Settings, 'site' | 'deployment'>, busyDelayMs?: number): OwnPosts {
  const refused = () => busyResponse('MCP calls', busyDelayMs);
  return (req, pathname) => {
    if (pathname !== MCP_PATH || req.method !== 'POST') return undefined;
    if (thread.busy('mcp')) return refused();
    return handleMcpPost(webRequest(req), limiter(), settings, (request, bytes, message) =>
      thread.mcp({ url: request.url, headers: [...request.headers], body: bytes, message }).then(responseOf, (error: unknown) => {
        if (error instanceof ThreadBusyError) return refused();
        // Nothing of it reached the thread, and it holds no place there: a message the server cannot take.
        if (error instanceof JobNotSendableError) return jsonRpcError(400, -32600, 'Invalid Request: this message cannot be handled.', {});
        console.error('MCP call failed in the search thread', error);
        return refused();
      }),
    );
  };
}
