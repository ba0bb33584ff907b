import { carriesContentUsage, CONTENT_USAGE } from '../agents/terms';
import type { Settings } from '../settings';
import { cameOverHttps, contentSecurityPolicy, documentPolicy, isHtml, securityHeaders } from './security-headers';

/**
 * The headers lectern's server puts on every response, for a host that runs
 * Next.js without it (PLATFORM_MODE), set by proxy.ts before the response
 * exists: the fixed security headers, and a Content-Security-Policy chosen by
 * what the URL serves.
 *
 * An HTML page's policy cannot list its inline elements' hashes there (the
 * head is fixed before the page is read), and a nonce would make every page
 * render per request; so it allows inline scripts and styles and keeps every
 * other rule: scripts, styles, images, fonts and fetches only from the site,
 * no plugins, no `<base>`, no framing, forms only to the site and checkout.
 * That stays safe because nothing a visitor or an author writes reaches a page
 * as markup that runs: post HTML is sanitized when it is built (no script, no
 * style element, no event attribute), and everything else is escaped by React.
 */
export const PLATFORM_DOCUMENT_POLICY = documentPolicy({ scripts: ["'unsafe-inline'"], styles: ["'unsafe-inline'"] });

/** Whether a URL answers with an HTML page (then with a page's policy); JSON, markdown, feeds, files and images do not. */
export function servesHtml(pathname: string, markdown: boolean): boolean {
  if (markdown) return false;
  if (/^\/(?:api|_next|\.well-known)\//.test(pathname)) return false;
  if (/^\/(?:healthz|mcp)$/.test(pathname)) return false;
  const last = pathname.slice(pathname.lastIndexOf('/') + 1);
  if (last.includes('.')) return false;
  return !/^(?:opengraph-image|twitter-image|icon|apple-icon)(?:-\w+)?$/.test(last);
}

type Connection = { siteUrl: string; trustProxy: number; forwardedProto: string | null };

/** The headers of a response whose content type is known (a write route's answer). */
export function platformHeadersFor(contentType: string, connection: Connection): Record<string, string> {
  const https = cameOverHttps({
    encrypted: false,
    siteUrl: connection.siteUrl,
    trustProxy: connection.trustProxy,
    forwardedProto: connection.forwardedProto ?? undefined,
  });
  return {
    ...securityHeaders({ https }),
    'Content-Security-Policy': isHtml(contentType) ? PLATFORM_DOCUMENT_POLICY : contentSecurityPolicy(contentType),
  };
}

/** The headers of the answer to a URL, set before the answer exists (proxy.ts). */
export function platformHeaders(
  options: Connection & { pathname: string; /** The request is answered with markdown (by Accept or by URL). */ markdown: boolean },
): Record<string, string> {
  const type = servesHtml(options.pathname, options.markdown) ? 'text/html' : options.markdown ? 'text/markdown' : 'application/octet-stream';
  // A page or markdown read carries the site's terms (feeds and JSON carry them from their routes, lib/http/responses.ts).
  return { ...platformHeadersFor(type, options), ...(carriesContentUsage(type) ? { 'Content-Usage': CONTENT_USAGE } : {}) };
}

/**
 * Without lectern's server (PLATFORM_MODE), the security headers it would add;
 * proxy.ts does not see the write routes (nor /mcp), whose bodies they read themselves.
 */
export function platformHeadersOf(request: Request, contentType: string, { deployment, site }: Pick<Settings, 'deployment' | 'site'>): Record<string, string> {
  if (!deployment.platform) return {};
  return platformHeadersFor(contentType, {
    siteUrl: site.url,
    trustProxy: deployment.trustProxy,
    forwardedProto: request.headers.get('x-forwarded-proto'),
  });
}
