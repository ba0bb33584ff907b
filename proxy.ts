import { NextResponse, type NextRequest } from 'next/server';
import { API_CATALOG_LINK } from '@/lib/agents/api-catalog';
import { crawlerRefusal, refusesCrawler } from '@/lib/agents/terms';
import { clock } from '@/lib/runtime/site';
import { madeUpValue } from '@/lib/content/made-up';
import { fediverseRoute, PLATFORM_FEDIVERSE_ROUTE } from '@/lib/fediverse/paths';
import { SLUG_PATTERN } from '@/lib/content/schema';
import { absoluteUrl } from '@/lib/runtime/site';
import { linkHeader } from '@/lib/http/links';
import { markdownUrlRoute } from '@/lib/http/markdown-twins';
import { NEGOTIATED_ON, negotiationFor, type Negotiation } from '@/lib/http/negotiate';
import { problem } from '@/lib/http/problem';
import { cacheHeaders } from '@/lib/http/cache';
import { runtimeReadPages } from '@/lib/routes/manifest';
import { markdownNotFound, textResponse } from '@/lib/http/responses';
import { platformHeaders, platformHeadersFor } from '@/lib/http/platform-headers';
import { settings } from '@/lib/settings';

/**
 * Markdown twins of the pages (lib/http/markdown-twins.ts), reached two more ways than their
 * own static routes: `/blog/{slug}.md` and `/tags/{tag}.md`, and a page's URL with an Accept
 * header that ranks markdown first. Both land on the twin's static route; the HTML page
 * announces its twin with a Link header. IndexNow's key file. Training crawlers refused (on a
 * host without lectern's server, whose handler refuses them first otherwise). On a host without
 * lectern's server, the headers of lib/http/platform-headers.ts on every response.
 */
export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  // Under lectern's server, the variant it decided and recorded; elsewhere decided here.
  const negotiated = negotiationFor(pathname, request.headers);
  const { deployment, site, agents, fediverse: onFediverse } = settings();
  const refused = agents.refuseTrainingCrawlers && refusesCrawler(request.headers.get('user-agent') ?? undefined, pathname);
  // Without lectern's server, the fediverse's URLs (lib/fediverse/paths.ts) go to its route, which sets
  // its answers' headers itself; a browser on the actor's URL gets the home page, as at /.
  const fediverse =
    !refused && deployment.platform && onFediverse.handle ? fediverseRoute(request.method, pathname, request.headers.get('accept') ?? undefined) : undefined;
  if (fediverse === 'fedify') return rewriteTo(request, `${PLATFORM_FEDIVERSE_ROUTE}${pathname}`);
  const response = refused ? crawlerRefusal() : fediverse === 'home' ? rewriteTo(request, '/') : answer(request, negotiated);
  if (!deployment.platform) return response;
  // Without lectern's server (PLATFORM_MODE), the headers it would add to every response.
  const markdown = pathname.endsWith('.md') || negotiated?.variant === 'markdown';
  const connection = { siteUrl: site.url, trustProxy: deployment.trustProxy, forwardedProto: request.headers.get('x-forwarded-proto') };
  const headers = refused ? platformHeadersFor('application/problem+json', connection) : platformHeaders({ pathname, markdown, ...connection });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

function answer(request: NextRequest, negotiated: Negotiation | undefined): Response {
  const { pathname } = request.nextUrl;
  const key = settings().indexNow.key;
  if (key && pathname === `/${key}.txt`) {
    // IndexNow's key file: proves the submitted URLs are ours.
    return textResponse(key, { cache: 'read' });
  }
  const madeUp = notInTheBuild(request, negotiated);
  if (madeUp) return madeUp;
  const route = markdownUrlRoute(pathname);
  if (route) return toMarkdown(request, route, undefined);
  if (!negotiated) return NextResponse.next();
  const { twin, variant } = negotiated;
  // A page rendered at each request that is still a read keeps the read profile (Next keeps a Cache-Control it finds).
  const vary = { Vary: NEGOTIATED_ON, ...(runtimeReadPages.includes(pathname) && variant !== 'markdown' ? cacheHeaders('read') : {}) };
  if (variant === 'markdown') return toMarkdown(request, twin.route, vary);
  if (!validPost(pathname)) return NextResponse.next({ headers: vary });
  const links = [...(pathname === '/' ? [API_CATALOG_LINK] : []), linkHeader(absoluteUrl(twin.markdownPath), 'alternate', 'text/markdown')];
  return NextResponse.next({ headers: { ...vary, Link: links.join(', ') } });
}

/** A post URL's slug is checked before it goes anywhere; other paths have no slug to check. */
function validPost(pathname: string): boolean {
  const post = /^\/blog\/([^/]+?)(?:\.md)?$/.exec(pathname);
  return !post || SLUG_PATTERN.test(post[1] ?? '');
}

/**
 * A URL under one of app/'s dynamic segments whose value does not exist now: a made-up post slug,
 * tag, page number, sitemap file or app, or one that only a post dated ahead fills (the post, a tag
 * only it carries, a page only it adds), judged against what is live at this moment
 * (lib/content/built-paths.ts, with the build's list and the clock). Each gets the same answer,
 * so a scheduled post's tag or page cannot be told from a made-up one. Posts past PRERENDER_POSTS
 * are generated on their first request, and Next keeps every answer it generates for a dynamic
 * segment, 404s included, on disk and in memory: such a value is answered here, so nothing
 * renders and nothing is kept for it. (In development, and for values that exist, Next answers.)
 */
function notInTheBuild(request: NextRequest, negotiated: Negotiation | undefined): Response | undefined {
  const { pathname } = request.nextUrl;
  const unknown = madeUpValue(pathname, clock());
  if (!unknown) return undefined;
  if (unknown.answer === 'problem') return problem('not-found', unknown.detail);
  if (unknown.answer === 'card') return textResponse('Not found\n', { status: 404, cache: 'error' });
  const vary = negotiated ? { Vary: NEGOTIATED_ON } : undefined;
  if (unknown.answer === 'markdown' || negotiated?.variant === 'markdown') return withHeaders(markdownNotFound(), vary);
  // Next's own not-found page, as for any URL it has no route for.
  const target = request.nextUrl.clone();
  target.pathname = '/_not-a-published-post';
  return NextResponse.rewrite(target, { headers: vary });
}

function toMarkdown(request: NextRequest, route: string, vary: Record<string, string> | undefined): Response {
  if (!validPost(request.nextUrl.pathname)) return withHeaders(markdownNotFound(), vary);
  const target = request.nextUrl.clone();
  target.pathname = route;
  return NextResponse.rewrite(target, { headers: vary });
}

function rewriteTo(request: NextRequest, pathname: string): Response {
  const target = request.nextUrl.clone();
  target.pathname = pathname;
  return NextResponse.rewrite(target);
}

function withHeaders(response: Response, headers: Record<string, string> | undefined): Response {
  for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
  return response;
}

// Every URL but Next's own build files, /mcp, the fediverse's inboxes (next.config.ts rewrites them to
// their route) and the paths under /api/ that are not read routes
// (the write routes and the payments webhook): Next would buffer a body that passes here
// before the route reads it (and cut it at proxyClientMaxBodySize), and each of those routes
// counts its own body as it arrives (lib/http/body.ts) and sets its platform headers itself
// (lib/write-routes/front-door.ts). A new read route under /api/ is named here; a new write route
// needs nothing. Next reads this literal when it builds (a computed value would be ignored), so
// tests/unit/proxy.test.ts holds it to the endpoint list and the route manifest.
export const config = { matcher: ['/((?!_next/static/|mcp/?$|inbox/?$|@[^/]+/inbox/?$|api/(?!blog|rss|search|home/|apps/)).*)'] };
