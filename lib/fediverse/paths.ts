import { contentPaths } from '../content/urls';

/**
 * Where the site speaks ActivityPub, as plain data (README, "On the fediverse"): the actor and its
 * collections under `/@{handle}`, the shared inbox, WebFinger and NodeInfo, and each post's page,
 * which answers its `Article` to a client that asks for ActivityStreams. lectern's server hands
 * these requests to Fedify (./federation.ts) ahead of Next (on a platform, Next's route at
 * PLATFORM_FEDIVERSE_ROUTE does); nothing else reaches it.
 */
export const fediversePaths = {
  actor: '/@{identifier}',
  inbox: '/@{identifier}/inbox',
  sharedInbox: '/inbox',
  outbox: '/@{identifier}/outbox',
  followers: '/@{identifier}/followers',
  // A URI template for Fedify, made from lib/content's one spelling of a post's path.
  article: contentPaths.post('{slug}') as `${string}{slug}`,
  nodeInfo: '/nodeinfo/2.1',
} as const;

/** The site's account as the fediverse writes it (`@blog@example.com`): its handle on the host of the site's URL. */
export function fediverseAccount(handle: string, siteUrl: string): string {
  return `@${handle}@${new URL(siteUrl).host}`;
}

/** Where a post's page is (lib/content's one spelling of it): a slug follows. */
const POST_PREFIX = contentPaths.post('');

/** The largest activity an inbox reads: Mastodon's own activities are a few KiB. */
export const INBOX_BODY_LIMIT = 256 * 1024;

/** The media types of ActivityStreams (the plain one and the JSON-LD profile Mastodon sends). */
const ACTIVITY_TYPES = /application\/(?:activity\+json|ld\+json)/i;

/** Whether an Accept header asks for ActivityStreams (a fediverse server fetching an object) rather than a page. */
export function asksForActivityStreams(accept: string | undefined): boolean {
  return accept !== undefined && ACTIVITY_TYPES.test(accept);
}

/** Whether a fediverse URL is also a page's (the actor's is the home page's for a browser, a post's is its page): their answers vary as that page's. */
export function sharesUrlWithPage(pathname: string): boolean {
  if (pathname.startsWith('/@')) return !pathname.includes('/', 2);
  return pathname.startsWith(POST_PREFIX) && /^[^/.]+$/.test(pathname.slice(POST_PREFIX.length));
}

/**
 * What a request is to the fediverse part: `fedify` (Fedify answers it), `home` (a browser on the
 * actor's URL: the home page is served there), or undefined (not the fediverse's: Next and the read
 * cache answer it as before). A post's page is Fedify's only when ActivityStreams is asked for.
 */
export function fediverseRoute(method: string, pathname: string, accept: string | undefined): 'fedify' | 'home' | undefined {
  if (pathname === '/.well-known/webfinger' || pathname === '/.well-known/nodeinfo' || pathname === fediversePaths.nodeInfo) return 'fedify';
  if (pathname === fediversePaths.sharedInbox) return 'fedify';
  if (pathname.startsWith('/@')) {
    const isActor = !pathname.includes('/', 2);
    if (isActor && (method === 'GET' || method === 'HEAD') && !asksForActivityStreams(accept)) return 'home';
    return 'fedify';
  }
  const postSlug = pathname.startsWith(POST_PREFIX) ? pathname.slice(POST_PREFIX.length) : undefined;
  if ((method === 'GET' || method === 'HEAD') && postSlug && /^[^/.]+$/.test(postSlug) && asksForActivityStreams(accept)) return 'fedify';
  return undefined;
}

/**
 * Where a host that runs only Next (PLATFORM_MODE) answers the fediverse's URLs: proxy.ts rewrites
 * them to this route with their path after it (the inboxes by next.config.ts, their bodies kept
 * from the proxy), and the route hands them to Fedify (lib/fediverse/route.ts).
 */
export const PLATFORM_FEDIVERSE_ROUTE = '/api/fediverse';
