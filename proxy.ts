import { NextResponse, type NextRequest } from 'next/server';
import { API_CATALOG_LINK } from '@/lib/agents/api-catalog';
import { SLUG_PATTERN } from '@/lib/content/schema';
import { absoluteUrl } from '@/lib/config';
import { linkHeader } from '@/lib/http/links';
import { markdownTwinOf, markdownUrlRoute } from '@/lib/http/markdown-twins';
import { prefersMarkdown } from '@/lib/http/negotiate';
import { markdownNotFound, textResponse } from '@/lib/http/responses';
import { indexNowKey } from '@/lib/forms/indexnow-key';

/**
 * Markdown twins of the pages (lib/http/markdown-twins.ts), reached two more ways than their
 * own static routes: `/blog/{slug}.md` and `/tags/{tag}.md`, and a page's URL with an Accept
 * header that ranks markdown first. Both land on the twin's static route; the HTML page
 * announces its twin with a Link header.
 */
export function proxy(request: NextRequest) {
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

// The pages of lib/http/markdown-twins.ts (Next needs the list written out here) and the IndexNow key file.
export const config = {
  matcher: ['/', '/blog', '/blog/:path+', '/tags/:path+', '/pricing', '/apps', '/docs/api', '/support', '/:key([A-Za-z0-9-]{8,128}).txt'],
};
