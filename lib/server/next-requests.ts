import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { inject } from 'light-my-request';

/** Next's request handler (`app.getRequestHandler()`), as lectern's server calls it. */
export type NextHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A GET the server makes of Next itself: its status and body. */
export type NextGet = (path: string, headers?: OutgoingHttpHeaders) => Promise<{ status: number; body: string }>;

/**
 * GETs handed to Next's handler in this process, with no socket and no port (light-my-request
 * makes the request and response objects): the server's own requests to Next (the posts generated
 * in the background, the revalidation and the outputs made anew when a post goes live) do not pass
 * lectern's read cache, and nothing outside the process can send one.
 */
export function nextRequests(render: NextHandler): NextGet {
  return async (path, headers = {}) => {
    const answer = await inject(render, { method: 'GET', url: path, headers: headers as Record<string, string> });
    return { status: answer.statusCode, body: answer.payload };
  };
}
