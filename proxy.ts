import { NextResponse, type NextRequest } from 'next/server';
import { SLUG_PATTERN } from '@/lib/content/schema';
import { absoluteUrl, config as siteConfig } from '@/lib/config';
import { deployment } from '@/lib/deploy';
import { linkHeader } from '@/lib/http/links';
import { prefersMarkdown } from '@/lib/http/negotiate';
import { markdownNotFound, textResponse } from '@/lib/http/responses';
import { indexNowKey } from '@/lib/forms/indexnow-key';
import { platformHeaders } from '@/lib/server/platform-headers';

/**
 * Markdown for posts, two ways on top of the API route:
 * `/blog/{slug}.md`, and `/blog/{slug}` with an Accept header that ranks markdown first.
 * Both land on the static `/blog/{slug}/index.md` route.
 * IndexNow's key file. Without lectern's server (PLATFORM_MODE), the headers it
 * would add to every response (lib/server/platform-headers.ts).
 */
export function proxy(request: NextRequest) {
  const { response, markdown } = route(request);
  const settings = deployment();
  if (settings.platform) {
    const headers = platformHeaders({
      pathname: request.nextUrl.pathname,
      markdown,
      siteUrl: siteConfig().siteUrl,
      trustProxy: settings.trustProxy,
      forwardedProto: request.headers.get('x-forwarded-proto'),
    });
    for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  }
  return response;
}

function route(request: NextRequest): { response: Response; markdown: boolean } {
  const key = indexNowKey();
  if (key && request.nextUrl.pathname === `/${key}.txt`) {
    // IndexNow's key file: proves the submitted URLs are ours.
    return { response: textResponse(key, { cache: 'read' }), markdown: false };
  }
  const match = /^\/blog\/([^/]+?)(\.md)?$/.exec(request.nextUrl.pathname);
  if (!match) return { response: NextResponse.next(), markdown: request.nextUrl.pathname.endsWith('.md') };
  const [, slug = '', dotMd] = match;
  const wantsMarkdown = dotMd !== undefined || prefersMarkdown(request.headers.get('accept'));
  const vary = dotMd === undefined ? { Vary: 'Accept' } : undefined;

  if (!SLUG_PATTERN.test(slug)) {
    return {
      response: wantsMarkdown ? withHeaders(markdownNotFound(request.nextUrl.pathname), vary) : NextResponse.next({ headers: vary }),
      markdown: wantsMarkdown,
    };
  }
  if (wantsMarkdown) {
    const target = request.nextUrl.clone();
    target.pathname = `/blog/${slug}/index.md`;
    return { response: NextResponse.rewrite(target, { headers: vary }), markdown: true };
  }
  return {
    response: NextResponse.next({
      headers: { ...vary, Link: linkHeader(absoluteUrl(`/blog/${slug}.md`), 'alternate', 'text/markdown') },
    }),
    markdown: false,
  };
}

function withHeaders(response: Response, headers: Record<string, string> | undefined): Response {
  for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
  return response;
}

// Every URL but Next's own build files and the write routes: Next would buffer a body that
// passes here before the route reads it, and each write route counts its own body as it
// arrives (lib/http/body.ts); they set their platform headers themselves (lib/http/write-route.ts).
export const config = { matcher: ['/((?!_next/static/|api/subscribe|api/support|api/payments/|api/booking/|api/index-notify).*)'] };
