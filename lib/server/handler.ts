import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ContentError } from '../content/load';
import { recordClientIp } from '../http/client-ip';
import { sendContentError } from './content-error-page';
import { createReadCache } from './read-cache';
import { adjustResponseHead, isNegotiatedPath } from './response-headers';
import { applySecurityHeaders, requestIsHttps, securedHead, withDocumentPolicy, type SecurityOptions } from './security';

export type Render = (req: IncomingMessage, res: ServerResponse) => void;

export type HandlerOptions = {
  dev?: boolean;
  /** Development: the content folder's problems as it is now, answered instead of any page while there are some. */
  contentError?: () => ContentError | undefined;
};

/**
 * lectern's request handler in front of Next's (`render`):
 * - a GET or HEAD is answered by the read cache: from memory once rendered,
 *   with every header final and computed once per page (no Next on that path);
 * - any other request (the write routes) reaches Next with the socket address
 *   recorded as the client IP (a header no client can set), and its response
 *   gets the same headers on the way out.
 */
export function createRequestHandler(render: Render, security: SecurityOptions, options: HandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
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
    const contentError = options.contentError && !(req.url ?? '/').startsWith('/_next/') ? options.contentError() : undefined;
    if (contentError) {
      applySecurityHeaders(req, res, security);
      return sendContentError(req, res, contentError);
    }
    if (readCache.handle(req, res, renderWithClientIp)) return;
    adjustResponseHead(res, { varyAccept: isNegotiatedPath((req.url ?? '/').split('?', 1)[0] ?? '/') });
    applySecurityHeaders(req, res, security);
    renderWithClientIp(req, res);
  };
}
