import { revalidatePath } from 'next/cache';
import { clock } from '../clock';
import { publishedPosts } from '../content';
import { aheadCount, builtList } from '../content/published-set';
import { describeError } from '../log';
import { accepted, submitToIndexNow } from '../indexnow/submit';
import { prepareSearchIndex } from '../search/site';
import { store } from '../services';
import { claimWentLive, type LivePost } from './went-live';
import { settings } from '../settings';

export type Published = {
  /** How many posts are live now. */
  live: number;
  /** Whether Next's generated pages, feeds and files were marked to be made again. */
  revalidated: boolean;
  /** The URLs of the posts whose going live this run announced. */
  wentLive: string[];
  /** False when the store could not be asked which posts to announce: a later run announces them. */
  claimed: boolean;
};

/** How many of the build's posts were still ahead when this copy last revalidated (per process). */
let revalidatedAt: number | undefined;

/**
 * Brings a running site up to the clock: when the set of live posts differs from the one the
 * build generated its lists with, every page, feed and file Next generated is marked stale, so
 * each is made again on its next request, with the posts live now; then the posts that went
 * live since the last run (on any instance) are announced, once each. Called by lectern's
 * scheduler at each post's time and at start, and by a platform's cron job (GET /api/publish).
 */
export async function publishDue(): Promise<Published> {
  const now = clock();
  const live = publishedPosts(now);
  const list = builtList();
  const ahead = list ? aheadCount(list.dates, now) : undefined;
  const atBuild = list ? aheadCount(list.dates, list.builtAt) : undefined;
  let revalidated = false;
  if (ahead === undefined || (ahead !== atBuild && ahead !== revalidatedAt)) {
    // Every route's implicit tags include the root layout's: one call covers pages, feeds and files.
    revalidatePath('/', 'layout');
    revalidatedAt = ahead;
    revalidated = true;
    // Where no lectern server runs (a platform), an instance may live only for this request: the
    // search index of the posts live now is built before the answer, not in slices between requests
    // that may never come. (lectern's server answers searches from its search thread, which follows
    // the clock itself.)
    if (settings().deployment.platform) prepareSearchIndex(() => undefined);
  }
  // The posts are live whatever the store does; only their announcement waits for it.
  let wentLive: LivePost[];
  try {
    wentLive = await claimWentLive(store().settings, live, now);
  } catch (error) {
    console.warn(`publish: the store is unavailable (${describeError(error)}); posts that went live are announced later`);
    return { live: live.length, revalidated, wentLive: [], claimed: false };
  }
  if (wentLive.length > 0) await announce(wentLive);
  return { live: live.length, revalidated, wentLive: wentLive.map((post) => post.url), claimed: true };
}

/** A post's going live, told to what listens: IndexNow (when INDEXNOW_KEY is set). */
async function announce(posts: readonly LivePost[]): Promise<void> {
  if (!settings().indexNow.key) return;
  const urls = posts.map((post) => post.url);
  try {
    const submission = await submitToIndexNow(urls);
    if (!submission.ok || !accepted(submission.batches)) console.warn(`publish: IndexNow did not accept ${urls.join(' ')}`);
  } catch (error) {
    console.warn(`publish: IndexNow failed (${describeError(error)})`);
  }
}
