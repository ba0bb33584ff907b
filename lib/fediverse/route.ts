import { after } from 'next/server';
import { platformHeadersOf } from '../http/platform-headers';
import { problem } from '../http/problem';
import { describeError } from '../log';
import type { Settings } from '../settings';
import { fediverseRoute, PLATFORM_FEDIVERSE_ROUTE } from './paths';
import { INBOX_DELIVERY_BUDGET_MS, type PlatformFediverse } from './platform';

/**
 * The fediverse's URLs on a host where only Next runs (PLATFORM_MODE), at app/api/fediverse/: the
 * URL asked is the path after the route (proxy.ts and next.config.ts rewrite it there). A request
 * ./paths.ts gives to Fedify is answered by it on the store and queue on Upstash; anything else
 * (FEDIVERSE=0, no platform, a browser's request) gets the 404 a URL nobody serves gets. An
 * activity an inbox took is worked on after the answer (`after()`, within
 * INBOX_DELIVERY_BUDGET_MS): a follow's `Accept` goes back then, not at the next cron call. The
 * headers lectern's server puts on every response are set here (proxy.ts leaves these alone).
 */
export async function platformFediverseResponse(
  request: Request,
  fediverse: () => PlatformFediverse | undefined,
  settings: Pick<Settings, 'deployment' | 'site'>,
): Promise<Response> {
  const url = new URL(request.url);
  const pathname = url.pathname.startsWith(`${PLATFORM_FEDIVERSE_ROUTE}/`) ? url.pathname.slice(PLATFORM_FEDIVERSE_ROUTE.length) : url.pathname;
  const site = settings.deployment.platform ? fediverse() : undefined;
  let answer: Response;
  if (!site || fediverseRoute(request.method, pathname, request.headers.get('accept') ?? undefined) !== 'fedify') {
    answer = problem('not-found', 'Nothing on the fediverse has this address.', { cache: 'live' });
  } else {
    try {
      answer = await site.respond(request, pathname, url.search);
    } catch (error) {
      console.error(`fediverse: ${request.method} ${pathname} failed (${describeError(error)})`);
      answer = problem('service-unavailable', 'The fediverse is unavailable right now. Please try again in a minute.', {
        cache: 'write',
        headers: { 'Retry-After': '60' },
      });
    }
    if (request.method === 'POST' && answer.ok) after(async () => void (await site.work(INBOX_DELIVERY_BUDGET_MS)));
  }
  const headers = new Headers(answer.headers);
  for (const [name, value] of Object.entries(platformHeadersOf(request, headers.get('content-type') ?? 'application/octet-stream', settings)))
    headers.set(name, value);
  // The actor's and the posts' URLs answer a page to anyone else.
  if (request.method === 'GET' || request.method === 'HEAD') headers.append('Vary', 'Accept');
  return new Response(request.method === 'HEAD' ? null : answer.body, { status: answer.status, headers });
}
