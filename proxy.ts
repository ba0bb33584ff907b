import { NextResponse, type NextRequest } from 'next/server';
import { API_CATALOG_LINK } from '@/lib/agents/api-catalog';
import { SLUG_PATTERN } from '@/lib/content/schema';
import { absoluteUrl, config as siteConfig } from '@/lib/config';
import { deployment } from '@/lib/deploy';
import { linkHeader } from '@/lib/http/links';
import { markdownTwinOf, markdownUrlRoute } from '@/lib/http/markdown-twins';
import { prefersMarkdown } from '@/lib/http/negotiate';
import { markdownNotFound, textResponse } from '@/lib/http/responses';
import { indexNowKey } from '@/lib/indexnow/key';
import { platformHeaders } from '@/lib/server/platform-headers';

/**
 * Markdown twins of the pages (lib/http/markdown-twins.ts), reached two more ways than their
 * own static routes: `/blog/{slug}.md` and `/tags/{tag}.md`, and a page's URL with an Accept
 * header that ranks markdown first. Both land on the twin's static route; the HTML page
 * announces its twin with a Link header. IndexNow's key file. On a host without lectern's
 * server, the headers of lib/server/platform-headers.ts on every response.
 */
export function proxy(request: NextRequest) {
  const response = answer(request);
  const settings = deployment();
  if (!settings.platform) return response;
  // Without lectern's server (PLATFORM_MODE), the headers it would add to every response.
  const { pathname } = request.nextUrl;
  const markdown = pathname.endsWith('.md') || (markdownTwinOf(pathname) !== undefined && prefersMarkdown(request.headers.get('accept')));
  const headers = platformHeaders({ pathname, markdown, siteUrl: siteConfig().siteUrl, trustProxy: settings.trustProxy, forwardedProto: request.headers.get('x-forwarded-proto') });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

function answer(request: NextRequest): Response {
  const { pathname } = request.nextUrl;
  const key = indexNowKey();
  if (key && pathname === `/${key}.txt`) {
    // IndexNow's key file: proves the submitted URLs are ours.
    return textResponse(key, { cache: 'read' });
  }
  const route = markdownUrlRoute(pathname);
  if (route) return toMarkdown(request, route, undefined);
  const twin = markdownTwinOf(pathname);
  if (!twin) return NextResponse.next();
  const vary = { Vary: 'Accept' };
  if (prefersMarkdown(request.headers.get('accept'))) return toMarkdown(request, twin.route, vary);
  if (!validPost(pathname)) return NextResponse.next({ headers: vary });
  const links = [...(pathname === '/' ? [API_CATALOG_LINK] : []), linkHeader(absoluteUrl(twin.markdownPath), 'alternate', 'text/markdown')];
  return NextResponse.next({ headers: { ...vary, Link: links.join(', ') } });
}

/** A post URL's slug is checked before it goes anywhere; other paths have no slug to check. */
function validPost(pathname: string): boolean {
  const post = /^\/blog\/([^/]+?)(?:\.md)?$/.exec(pathname);
  return !post || SLUG_PATTERN.test(post[1] ?? '');
}

function toMarkdown(request: NextRequest, route: string, vary: Record<string, string> | undefined): Response {
  if (!validPost(request.nextUrl.pathname)) return withHeaders(markdownNotFound(request.nextUrl.pathname), vary);
  const target = request.nextUrl.clone();
  target.pathname = route;
  return NextResponse.rewrite(target, { headers: vary });
}

function withHeaders(response: Response, headers: Record<string, string> | undefined): Response {
  for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
  return response;
}

// Every URL but Next's own build files and the write routes: Next would buffer a body that
// passes here before the route reads it, and each write route counts its own body as it
// arrives (lib/http/body.ts); they set their platform headers themselves (lib/http/write-route.ts).
export const config = { matcher: ['/((?!_next/static/|api/subscribe|api/support|api/payments/|api/booking/|api/index-notify).*)'] };
