import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock';
import { aheadCount, type PublishedSet } from '../content/published-set';
import { buildRecord, clock } from '../runtime/site';
import { contentPaths } from '../content/urls';
import { describeError } from '../log';
import { findShared, shared } from '../process-shared';
import { nextRequests, type NextHandler } from '../server/next-requests';
import { listUrls, postUrls } from '../server/prewarm';
import { postsChanged, type PostsChangedHost } from './posts-changed';
import { createScheduler, SCHEDULER_TOKEN, type Periodic, type Scheduler } from './scheduler';

export { renderAheadInThread } from './render-ahead-thread';

/** What lectern's server does for the reactions its scheduler runs (lib/publishing/posts-changed.ts). */
export type ServerReactions = Pick<PostsChangedHost, 'refreshSearch' | 'claims' | 'indexNow' | 'newsletter' | 'fediverse'> & {
  /** A post is due at this time: the search index of the posts live then is built ahead (lib/search/site.ts, `prepareSearchIndexFor`). */
  prepareSearch?: (at: number) => void;
  /** Makes one output anew in place of the read cache's copy (its readers get that copy until then); resolves with its status. */
  remake: (path: string) => Promise<number | undefined>;
  /** Everything else the read cache kept is stale: sent while it is made anew, one at a time (lib/server/read-cache.ts). */
  readsChanged: () => void;
  /**
   * Posts are due by this time: they are rendered now, off the thread that answers readers
   * (lib/publishing/render-ahead.ts); resolves with how many.
   */
  renderAhead?: (until: number) => Promise<number>;
};

/** lectern's server's scheduler, and the moment its reads have caught up with. */
export type SiteScheduler = Scheduler & {
  /**
   * The moment what a made-up value is judged against (lib/server/made-up.ts): the clock's, but
   * from a post's time until its page and markdown are made anew (the first outputs made, at most
   * HELD_AT_MOST_MS), the moment before it. Until then its URLs answer as they did before its
   * time, as its lists do (stale, lib/server/read-cache.ts), so no reader waits for the first render
   * of its page; none of them has a link to it yet.
   */
  readsAt(): number;
};

/**
 * lectern's server's scheduler: at start and at each post's time it runs the reactions to the
 * published set changing (lib/publishing/posts-changed.ts) in this process, with the server's own:
 * Next's revalidation is asked of Next's handler (`render`) in-process, at GET /api/publish with a
 * token that never leaves the process (Next's revalidation runs only inside a request it handles);
 * the search thread starts its new index; everything the read cache kept is stale (`readsChanged`:
 * sent while it is made anew), and the outputs a post's going live changes most are made first,
 * each by the read cache in place of its copy (`remake`); the newsletter looks
 * for the post. Before each post's time the posts due are rendered off the readers' thread
 * (`renderAhead`).
 * `periodic`: work done at each look at the clock too (the bookings' reminders, lib/bookings/reminders.ts).
 * Made idle (lib/runtime starts it: its `start` resolves once the site is up to the clock);
 * undefined where no build wrote its list.
 */
export function siteScheduler(render: NextHandler, reactions: ServerReactions, periodic: readonly Periodic[] = []): SiteScheduler | undefined {
  const list = buildRecord().builtList();
  if (!list) return undefined;
  const token = shared(SCHEDULER_TOKEN, () => randomBytes(32).toString('base64url'));
  const get = nextRequests(render);
  const { renderAhead } = reactions;
  /** The render ahead last started (renderAheadOf never rejects). */
  let rendering: Promise<void> = Promise.resolve();
  /** How many of the build's posts were ahead when the outputs were last made anew. */
  let madeAhead = aheadCount(list.dates, list.builtAt);
  const host: PostsChangedHost = {
    async revalidate() {
      const { status, body } = await get('/api/publish', { authorization: `Bearer ${token}` });
      if (status !== 200) throw new Error(`/api/publish answered ${status}: ${body.slice(0, 200)}`);
    },
    refreshSearch: reactions.refreshSearch,
    async remakeReads(ahead) {
      // A render ahead still under way (a post due soon after the last) is waited for, a little:
      // made at the post's time on this thread, the page and the mail would hold every reader up.
      await settled(rendering, RENDER_WAIT_MS);
      // Everything the read cache kept is stale: each is sent while it is made anew, one at a time,
      // on its first request. The pages of the posts that just went live, the lists and feeds, and
      // their tags are made anew first, without waiting for a reader: none waits for a render at
      // the minute a post goes live (README, "Scheduling a post").
      reactions.readsChanged();
      const until = performance.now() + REMAKE_BUDGET_MS;
      const { posts, rest } = remakeUrls(list, madeAhead, ahead);
      await remake(posts, reactions.remake, until);
      // Their pages made, the posts are no longer answered as made up (`readsAt`).
      madeAhead = ahead;
      await remake(rest, reactions.remake, until);
    },
    claims: reactions.claims,
    indexNow: reactions.indexNow,
    async newsletter() {
      await settled(rendering, RENDER_WAIT_MS);
      return reactions.newsletter();
    },
    fediverse: reactions.fediverse,
  };
  const scheduler = createScheduler({
    clock,
    dates: list.dates,
    onChange: async () => {
      const published = await postsChanged(host, { now: clock() });
      // Tried again shortly (the posts are live already; only their announcement waits).
      if (!published.claimed) throw new Error('the posts that went live could not be claimed');
    },
    prepare: { leadMs: WARM_LEAD_MS, run: (nextPost) => void warmLists(render, { nextPost }) },
    approach: {
      leadMs: WARM_LEAD_MS,
      settleMs: APPROACH_SETTLE_MS,
      run: (due) => {
        reactions.prepareSearch?.(due);
        if (renderAhead) rendering = renderAheadOf(renderAhead, due);
      },
    },
    periodic,
  });
  return Object.assign(scheduler, {
    readsAt(): number {
      const now = clock();
      // The oldest post still counted ahead when the outputs were last made anew.
      const pending = list.dates[madeAhead - 1];
      return pending === undefined || now < pending || now - pending >= HELD_AT_MOST_MS ? now : pending - 1;
    },
  });
}

/**
 * At most how long after a post's time its own outputs answer as before it while they are made anew
 * (`readsAt`): a go-live slowed down or failing never hides a post longer.
 */
export const HELD_AT_MOST_MS = 5_000;

/**
 * The outputs made anew when `ahead` posts are still ahead and `madeAhead` were when they were last
 * made: the new posts' pages and markdown (`posts`: until they are made their readers get the 404 of
 * before, `readsAt`), then the lists, the tags, and the cards, the slowest to make, last (`rest`).
 */
function remakeUrls(list: PublishedSet, madeAhead: number, ahead: number): { posts: string[]; rest: string[] } {
  const wentLive = Array.from({ length: Math.min(MADE_AHEAD_POSTS, Math.max(0, madeAhead - ahead)) }, (_, index) => ahead + index);
  const tags = new Set(wentLive.flatMap((index) => list.postTags[index] ?? []));
  const tagUrls = [...tags].flatMap((tag) => [contentPaths.tag(tag), contentPaths.tagMarkdown(tag), contentPaths.tagRss(tag)]);
  const [posts, cards] = partition(
    // The markdown as readers spell it (/blog/{slug}.md): the read cache keeps each read under the URL asked.
    wentLive.flatMap((index) =>
      postUrls(list.slugs[index] ?? '').map((url) => (url.endsWith('/index.md') ? contentPaths.postMarkdown(list.slugs[index] ?? '') : url)),
    ),
    (url) => !url.endsWith('/opengraph-image'),
  );
  return { posts, rest: [...new Set([...listUrls(), ...tagUrls, ...cards])] };
}

function partition<T>(items: readonly T[], first: (item: T) => boolean): [T[], T[]] {
  return [items.filter(first), items.filter((item) => !first(item))];
}

/** At most how many posts that went live at once have their page, markdown, card and tags made before readers ask (the newest). */
const MADE_AHEAD_POSTS = 5;

/**
 * How long the outputs are made anew ahead of their readers, from the moment /api/publish answered.
 * On a busy machine making every list one after the other can take longer than the 5 s promised;
 * past this budget the ones not made yet are made anew on their next request (the reader getting
 * the stale copy meanwhile, lib/server/read-cache.ts).
 */
export const REMAKE_BUDGET_MS = 1_500;

/**
 * Makes each URL anew once, with the posts live now, in place of the read cache's copy (`make`), until
 * the `until` moment (performance.now()); a failure is logged, and that output, like those left at
 * `until`, is made anew on its next request.
 */
async function remake(urls: readonly string[], make: ServerReactions['remake'], until: number): Promise<void> {
  for (const url of urls) {
    if (performance.now() >= until) {
      console.warn(
        `publish: ${urls.length - urls.indexOf(url)} of ${urls.length} outputs are made on their next request (${REMAKE_BUDGET_MS} ms of making them ahead ran out)`,
      );
      return;
    }
    try {
      const status = await make(url);
      if (status !== 200) console.warn(`publish: ${url} answered ${status ?? 'nothing to keep'} when made anew`);
    } catch (error) {
      console.warn(`publish: ${url} could not be made anew (${describeError(error)})`);
    }
  }
}

/**
 * Has the posts due by `due` and in the WARM_LEAD_MS after it rendered now, off the readers' thread
 * (lib/publishing/render-ahead.ts), and logs what came of it: a failure only means they are rendered
 * at their time.
 */
async function renderAheadOf(render: (until: number) => Promise<number>, due: number): Promise<void> {
  const until = due + WARM_LEAD_MS;
  try {
    const count = await render(until);
    if (count > 0) console.log(`publish: ${count} post${count === 1 ? '' : 's'} due by ${new Date(until).toISOString()} rendered ahead of their time`);
  } catch (error) {
    console.warn(
      `publish: the posts due by ${new Date(until).toISOString()} could not be rendered ahead (${describeError(error)}); they are rendered at their time`,
    );
  }
}

/** At most how long a post's going live waits for its render ahead still under way (`renderAheadOf`). */
export const RENDER_WAIT_MS = 3_000;

/** Resolves when `work` has, or after `ms`, whichever comes first. */
function settled(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]).finally(() => clearTimeout(timer));
}

/**
 * How long after a post went live the next post's index and render are not started (unless it is
 * due sooner): the search thread and the render's thread would take the CPU from the outputs being
 * made anew and from the searches answered at that minute.
 */
export const APPROACH_SETTLE_MS = 5_000;

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
