import { revalidatePath } from 'next/cache';
import { clock } from '../clock';
import { publishedPosts } from '../content';
import { aheadCount, builtList } from '../content/published-set';
import { describeError } from '../log';
import { accepted, submitToIndexNow } from '../indexnow/submit';
import { sendSiteBatches, type StepResult } from '../newsletter';
import { prepareSearchIndex, refreshSearchIndex } from '../search/site';
import type { Services } from '../runtime';
import { claimWentLive, type LivePost } from './went-live';
import { queueDueReminders } from '../bookings/reminders';
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
  /**
   * On a platform, the newsletter's batch this call sent before answering: the messages it claimed,
   * and whether more may be due (the call goes on with them in `after()`, within its time budget).
   */
  newsletter?: StepResult;
  /** On a platform, how many bookings' reminders this call queued. */
  reminders?: number;
};

/** How many of the build's posts were still ahead when this copy last revalidated (per process). */
let revalidatedAt: number | undefined;

/**
 * Brings a running site up to the clock: when the set of live posts differs from the one the
 * build generated its lists with, every page, feed and file Next generated is marked stale, so
 * each is made again on its next request, with the posts live now; then the posts that went
 * live since the last run (on any instance) are announced, once each. Called by lectern's
 * scheduler at each post's time and at start, and by a platform's cron job (GET /api/publish),
 * where it also sends the newsletter (lectern's server has its own sender, which the scheduler
 * tells when a post goes live). The route hands it the process's services; the store is opened
 * only to claim. `regenerate` marks them stale even when nothing changed: lectern's server does so
 * before the first post it makes live, and asks for every list and feed, so their code and the
 * content it loads are ready at the post's time (lib/publishing/on-server.ts).
 */
export async function publishDue(services: Pick<Services, 'store' | 'newsletter' | 'mail'>, options: { regenerate?: boolean } = {}): Promise<Published> {
  const live = await publishLive(services, options);
  if (!settings().deployment.platform) return live;
  // No process of lectern's runs between requests: the cron call queues the bookings' due reminders (lectern's scheduler does elsewhere).
  let published = live;
  try {
    published = { ...live, reminders: await queueDueReminders(services.store, clock(), () => services.mail.sendQueued()) };
  } catch (error) {
    console.warn(`bookings: reminders wait for the next cron call (${describeError(error)})`);
  }
  try {
    return { ...published, newsletter: await sendSiteBatches(services.newsletter, settings().newsletter) };
  } catch (error) {
    console.warn(`newsletter: sending paused (${describeError(error)}); the next cron call goes on`);
    return published;
  }
}

async function publishLive(services: Pick<Services, 'store'>, options: { regenerate?: boolean }): Promise<Published> {
  const now = clock();
  const live = publishedPosts(now);
  const list = builtList();
  const ahead = list ? aheadCount(list.dates, now) : undefined;
  const atBuild = list ? aheadCount(list.dates, list.builtAt) : undefined;
  let revalidated = false;
  if (options.regenerate || ahead === undefined || (ahead !== atBuild && ahead !== revalidatedAt)) {
    // Every route's implicit tags include the root layout's: one call covers pages, feeds and files.
    revalidatePath('/', 'layout');
    revalidatedAt = ahead;
    revalidated = true;
    // Where no lectern server runs (a platform), an instance may live only for this request: the
    // search index of the posts live now is built before the answer, not in slices between requests
    // that may never come. lectern's server answers /api/search from its search thread, which
    // follows the clock itself; the search page and MCP search here, where the new index starts now.
    if (settings().deployment.platform) prepareSearchIndex(() => undefined);
    else refreshSearchIndex();
  }
  // The posts are live whatever the store does; only their announcement waits for it.
  let wentLive: LivePost[];
  try {
    wentLive = await claimWentLive(services.store.settings, live, now);
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
