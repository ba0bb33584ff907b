import { buildRecord, clock } from '../runtime/site';
import { pagePath } from '../content/pagination';
import { contentPaths } from '../content/urls';
import { parseQuery } from '../http/query';
import { publicEndpoints, type PublicEndpoint } from '../public-endpoints';
import { describeError } from '../log';
import { nextRequests, type NextHandler } from './next-requests';

/** The URLs of a post that a build generates for the newest posts: its page, its card and its markdown. */
export function postUrls(slug: string): string[] {
  const page = contentPaths.post(slug);
  return [page, `${page}/index.md`, `/api/blog/${slug}/markdown`, `${page}/opengraph-image`];
}

/** The largest file the site makes: every post's text in one. */
const LLMS_FULL = '/llms-full.txt';

/**
 * The URLs a post's going live makes anew, one of each route: every fixed path of the public list
 * (lib/public-endpoints.ts) that answers without a query, /blog's second page, and the page,
 * markdown and feed of the tag with the most pages, as they are now. Not llms-full.txt: every post's text in one
 * file, it would hold the server's one thread for seconds on a large site, for a file few ask
 * for; it is made on its first request after the time. Empty where no build wrote its list.
 */
export function listUrls(): string[] {
  const live = buildRecord().liveView(clock());
  if (!live) return [];
  const needsNoQuery = (endpoint: PublicEndpoint) => !endpoint.operation?.query || parseQuery(endpoint.operation.query, new URLSearchParams()).ok;
  const lists = publicEndpoints()
    .filter((endpoint) => !endpoint.path.includes('{') && endpoint.path !== LLMS_FULL && needsNoQuery(endpoint))
    .map((endpoint) => endpoint.path);
  if (live.blogPages > 1) lists.push(pagePath('/blog', 2));
  const [tag] = [...live.tagPages].sort(([, a], [, b]) => b - a)[0] ?? [];
  if (tag !== undefined) lists.push(contentPaths.tag(tag), contentPaths.tagMarkdown(tag), contentPaths.tagRss(tag));
  return lists;
}

/**
 * The posts the build left to their first request (past PRERENDER_POSTS), newest first: of
 * those published when it ran. A post dated ahead is generated on its first request after its
 * time, and must not be asked for before.
 */
export function postsToPrewarm(): string[] {
  const list = buildRecord().builtList();
  if (!list) return [];
  const published = list.slugs.filter((_, index) => (list.dates[index] ?? Infinity) <= list.builtAt);
  return published.slice(list.prerendered);
}

/**
 * Generates, one request at a time, the posts the build left to their first request, so a
 * reader or crawler arriving later finds them made. The requests go to Next's handler in this
 * process (lib/server/next-requests.ts): they do not pass lectern's read cache, which keeps what
 * readers ask for, not everything. Stops at the first failure, which it logs
 * (a post that fails here fails for a reader too, and is logged then), and before its next request
 * once `stopped` says the server is stopping.
 */
export async function prewarm(
  render: NextHandler,
  slugs: string[],
  log: (line: string) => void = console.log,
  stopped: () => boolean = () => false,
): Promise<void> {
  if (slugs.length === 0) return;
  const started = Date.now();
  log(`generating ${slugs.length} older posts in the background (PRERENDER_POSTS)`);
  try {
    const get = nextRequests(render);
    for (const slug of slugs) {
      for (const url of postUrls(slug)) {
        if (stopped()) throw new Error('the server is stopping');
        const { status } = await get(url);
        if (status !== 200) throw new Error(`${url} answered ${status}`);
      }
    }
    log(`generated ${slugs.length} older posts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    log(`stopped generating older posts: ${describeError(error)}`);
  }
}
