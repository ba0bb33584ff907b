import type { IncomingMessage, ServerResponse } from 'node:http';
import { bodyLimit, hasBody } from '../http/body';
import { cacheHeaders } from '../http/cache';
import { recordClientIp } from '../http/client-ip';
import { problemDetails } from '../http/problem';
import { createReadCache } from './read-cache';
import { adjustResponseHead, isNegotiatedPath } from './response-headers';
import { applySecurityHeaders, requestIsHttps, securedHead, withDocumentPolicy, type SecurityOptions } from './security';

export type Render = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Answers a request that sends a body to a URL that reads none (every page and
 * read), before Next would buffer it and without reading it; the connection
 * closes, so the rest of the upload is never taken in.
 */
function refuseBody(res: ServerResponse): void {
  const body = JSON.stringify(problemDetails('payload-too-large', 'This URL takes no request body.'));
  res.writeHead(413, { ...cacheHeaders('write'), 'Content-Type': 'application/problem+json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  res.end(body);
}

/**
 * lectern's request handler in front of Next's (`render`):
 * - a body sent to a URL that reads none is refused (413);
 * - a GET or HEAD is answered by the read cache: from memory once rendered,
 *   with every header final and computed once per page (no Next on that path);
 * - any other request (the write routes) reaches Next with the socket address
 *   recorded as the client IP, with its proof (headers no client can set), and
 *   its response gets the same headers on the way out.
 */
export function createRequestHandler(render: Render, security: SecurityOptions, options: { dev?: boolean } = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const readCache = createReadCache({
    // In development every read is rendered afresh, so edits show on reload.
    maxBytes: options.dev ? 0 : undefined,
    finishHeaders: security.csp ? withDocumentPolicy : undefined,
    isHttps: (req) => requestIsHttps(req, security),
    secureHead: (headers, https) => securedHead(headers, { https, csp: security.csp }),
  });
  const renderWithClientIp: Render = (req, res) => {
    recordClientIp(req.headers, req.socket.remoteAddress);
    render(req, res);
  };
  return (req, res) => {
    const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
    if (hasBody(req.headers) && bodyLimit(pathname) === undefined) {
      applySecurityHeaders(req, res, security);
      refuseBody(res);
      return;
    }
    if (readCache.handle(req, res, renderWithClientIp)) return;
    adjustResponseHead(res, { varyAccept: isNegotiatedPath(pathname) });
    applySecurityHeaders(req, res, security);
    renderWithClientIp(req, res);
  };
}
