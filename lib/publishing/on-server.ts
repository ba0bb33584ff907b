import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock';
import { aheadCount, type PublishedSet } from '../content/published-set';
import { buildRecord, clock } from '../runtime/site';
import { contentPaths } from '../content/urls';
import { describeError } from '../log';
import { findShared, shared } from '../process-shared';
import { nextRequests, type NextGet, type NextHandler } from '../server/next-requests';
import { listUrls, postUrls } from '../server/prewarm';
import { postsChanged, type PostsChangedHost } from './posts-changed';
import { createScheduler, SCHEDULER_TOKEN, type Periodic, type Scheduler } from './scheduler';

/** What lectern's server does for the reactions its scheduler runs (lib/publishing/posts-changed.ts). */
export type ServerReactions = Pick<PostsChangedHost, 'refreshSearch' | 'claims' | 'indexNow' | 'newsletter'> & {
  /** The read cache lets go of one output, made anew. */
  remade: (path: string) => void;
  /** The read cache lets go of everything else it kept. */
  readsChanged: () => void;
};

/**
 * lectern's server's scheduler: at start and at each post's time it runs the reactions to the
 * published set changing (lib/publishing/posts-changed.ts) in this process, with the server's own:
 * Next's revalidation is asked of Next's handler (`render`) in-process, at GET /api/publish with a
 * token that never leaves the process (Next's revalidation runs only inside a request it handles);
 * the search thread starts its new index; the outputs a post's going live changes most are made
 * first, each handed to `remade` (the read cache forgets its old copy of that one), then the read
 * cache lets go of the rest (`readsChanged`); the newsletter looks for the post.
 * `periodic`: work done at each look at the clock too (the bookings' reminders, lib/bookings/reminders.ts).
 * Made idle (lib/runtime starts it: its `start` resolves once the site is up to the clock);
 * undefined where no build wrote its list.
 */
export function siteScheduler(render: NextHandler, reactions: ServerReactions, periodic: readonly Periodic[] = []): Scheduler | undefined {
  const list = buildRecord().builtList();
  if (!list) return undefined;
  const token = shared(SCHEDULER_TOKEN, () => randomBytes(32).toString('base64url'));
  const get = nextRequests(render);
  /** How many of the build's posts were ahead when the outputs were last made anew. */
  let madeAhead = aheadCount(list.dates, list.builtAt);
  const host: PostsChangedHost = {
    async revalidate() {
      const { status, body } = await get('/api/publish', { authorization: `Bearer ${token}` });
      if (status !== 200) throw new Error(`/api/publish answered ${status}: ${body.slice(0, 200)}`);
    },
    refreshSearch: reactions.refreshSearch,
    async remakeReads(ahead) {
      // The lists and feeds, the pages of the posts that just went live and of their tags are made anew before
      // the read cache lets go of the old ones: readers are answered from memory meanwhile, and
      // after the clear from what was just made, so none waits for a render at the minute a post
      // goes live (README, "Scheduling a post").
      await remake(get, remakeUrls(list, madeAhead, ahead), reactions.remade, performance.now() + REMAKE_BUDGET_MS);
      madeAhead = ahead;
      reactions.readsChanged();
    },
    claims: reactions.claims,
    indexNow: reactions.indexNow,
    newsletter: reactions.newsletter,
  };
  return createScheduler({
    clock,
    dates: list.dates,
    onChange: async () => {
      const published = await postsChanged(host, { now: clock() });
      // Tried again shortly (the posts are live already; only their announcement waits).
      if (!published.claimed) throw new Error('the posts that went live could not be claimed');
    },
    prepare: { leadMs: WARM_LEAD_MS, run: (nextPost) => void warmLists(render, { nextPost }) },
    periodic,
  });
}

/**
 * The outputs made anew when `ahead` posts are still ahead and `madeAhead` were when they were last
 * made: the new posts' pages and markdown first (until then their readers get the 404 of before, and
 * after the clear each would wait for a render of its own), then the lists, the tags, and the cards
 * (the slowest to make) last.
 */
function remakeUrls(list: PublishedSet, madeAhead: number, ahead: number): string[] {
  const wentLive = Array.from({ length: Math.min(MADE_AHEAD_POSTS, Math.max(0, madeAhead - ahead)) }, (_, index) => ahead + index);
  const tags = new Set(wentLive.flatMap((index) => list.postTags[index] ?? []));
  const tagUrls = [...tags].flatMap((tag) => [contentPaths.tag(tag), contentPaths.tagMarkdown(tag), contentPaths.tagRss(tag)]);
  const [posts, cards] = partition(
    wentLive.flatMap((index) => postUrls(list.slugs[index] ?? '')),
    (url) => !url.endsWith('/opengraph-image'),
  );
  return [...new Set([...posts, ...listUrls(), ...tagUrls, ...cards])];
}

function partition<T>(items: readonly T[], first: (item: T) => boolean): [T[], T[]] {
  return [items.filter(first), items.filter((item) => !first(item))];
}

/** At most how many posts that went live at once have their page, markdown, card and tags made before readers ask (the newest). */
const MADE_AHEAD_POSTS = 5;

/**
 * How long the outputs are made anew before the read cache lets go of the rest, from the moment
 * /api/publish answered. On a busy machine making every list one after the other can take longer
 * than the 5 s promised; past this budget the ones not made yet are made on their next request.
 */
export const REMAKE_BUDGET_MS = 1_500;

/**
 * Makes each URL once, with the posts live now, and tells `made`, until the `until` moment
 * (performance.now()); a failure is logged, and that output, like those left at `until`, is made
 * on its next request.
 */
async function remake(get: NextGet, urls: readonly string[], made: (path: string) => void, until: number): Promise<void> {
  for (const url of urls) {
    if (performance.now() >= until) {
      console.warn(
        `publish: ${urls.length - urls.indexOf(url)} of ${urls.length} outputs are made on their next request (${REMAKE_BUDGET_MS} ms of making them ahead ran out)`,
      );
      return;
    }
    try {
      const { status } = await get(url);
      if (status === 200) made(url);
      else console.warn(`publish: ${url} answered ${status} when made anew`);
    } catch (error) {
      console.warn(`publish: ${url} could not be made anew (${describeError(error)})`);
    }
  }
}

/** How long before the first post this instance makes live its lists are made ready (warmLists). */
export const WARM_LEAD_MS = 120_000;
/** How long before the next post's time lists are no longer made ahead (one made then could finish after it). */
export const WARM_MARGIN_MS = 30_000;

/**
 * Makes every list and feed once, in Next's copy of the code, while the next scheduled post is
 * still more than WARM_MARGIN_MS away: the first time Next makes a route anew it loads that
 * route's code and the content folder for it, which for a large site takes seconds. Done in the
 * background WARM_LEAD_MS before the first post an instance makes live (at start when that is
 * nearer), it keeps that cost away from the post's time (README, "Scheduling a post"). Each list is made with the posts live now, so readers see nothing change;
 * one still being made at the post's time could be kept with the post missing, so the work stops
 * at the margin. A failure is logged; the post then goes live all the same.
 */
export async function warmLists(render: NextHandler, options: { nextPost: number; clock?: Clock; log?: (line: string) => void }): Promise<void> {
  const { nextPost, clock: now = clock, log = console.log } = options;
  const token = findShared<string>(SCHEDULER_TOKEN);
  const inTime = () => now() < nextPost - WARM_MARGIN_MS;
  if (!token || !inTime()) return;
  const started = Date.now();
  try {
    const get = nextRequests(render);
    const { status } = await get('/api/publish', { authorization: `Bearer ${token}` });
    if (status !== 200) throw new Error(`/api/publish answered ${status}`);
    for (const url of listUrls()) {
      if (!inTime()) throw new Error('the next post is due soon');
      const answer = await get(url);
      if (answer.status !== 200) throw new Error(`${url} answered ${answer.status}`);
    }
    log(`made the lists and feeds ready for the next scheduled post in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    log(`stopped making the lists and feeds ready for the next scheduled post: ${describeError(error)}`);
  }
}
