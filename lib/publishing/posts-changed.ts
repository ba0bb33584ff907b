import { revalidatePath } from 'next/cache';
import { publishedPosts } from '../content';
import { aheadCount } from '../content/published-set';
import { buildRecord } from '../runtime/site';
import { accepted, submitToIndexNow } from '../indexnow/submit';
import { describeError } from '../log';
import type { StepResult } from '../newsletter';
import type { Settings } from '../settings';
import type { SettingsStore } from '../services/store/settings/types';
import { claimWentLive, type LivePost } from './went-live';

/**
 * What a host does for each reaction to the published set changing (see `postsChanged`): lectern's
 * server (lib/publishing/on-server.ts) and a host where only Next runs (the cron route,
 * lib/publishing/publish-route.ts) each give their own.
 */
export type PostsChangedHost = {
  /** 1. Next's generated pages, feeds and files are marked stale (`revalidateOutputs`, run inside a request Next handles). */
  revalidate: () => Promise<void>;
  /** 2. The process's one search index starts anew on the posts live now (lectern's server: its search thread's). */
  refreshSearch: () => void;
  /**
   * 3. lectern's server: the read cache's copies go stale, and the outputs readers ask for first
   * are made anew by it, with `ahead` posts still ahead, each in place of its copy.
   */
  remakeReads?: (ahead: number) => Promise<void>;
  /** 4. Where the posts that went live are claimed, so that each is announced once across instances and restarts (asked for when needed: building a host opens nothing). */
  claims: () => Pick<SettingsStore, 'get' | 'set' | 'claim'>;
  /** 5. IndexNow's settings (it is told when its key is set) and the site's. */
  indexNow: Pick<Settings, 'indexNow' | 'site'>;
  /** 6. The newsletter looks for a post to mail (lectern's server: its sender; a platform: a batch within the call). */
  newsletter: () => Promise<StepResult | void>;
  /** 7. lectern's server and a platform's cron call: a `Create` of each claimed post is queued for the fediverse's followers (lib/fediverse), by slug. */
  fediverse?: (slugs: readonly string[]) => Promise<void>;
};

export type PostsChanged = {
  /** How many posts are live now. */
  live: number;
  /** Whether Next's generated pages, feeds and files were marked to be made again. */
  revalidated: boolean;
  /** The URLs of the posts whose going live this run announced. */
  wentLive: string[];
  /** False when the store could not be asked which posts to announce: a later run announces them. */
  claimed: boolean;
  /** On a platform, the newsletter's batch sent within this call. */
  newsletter?: StepResult;
};

/** How many of the build's posts were still ahead when this copy of the module last revalidated (per process). */
let revalidatedAt: number | undefined;

/**
 * The one answer to "the published set changed": lectern's scheduler calls it at each post's time
 * and at start (a deploy, or a post whose time came while no instance ran), and a platform's cron
 * job through GET /api/publish. Each reaction runs here, in this order:
 *
 * 1. Next's outputs are marked stale, so each is made again with the posts live now — when the live
 *    set differs from the one they were last made with (`regenerate`: whatever it is);
 * 2. the search index starts anew, so the first search after the time finds the post;
 * 3. on lectern's server, the read cache's copies go stale (each still sent until it is made anew),
 *    and the new posts' pages, then the lists, are made anew first (readers wait for no render);
 * 4. the posts that went live are claimed in the store (once across instances); with the store
 *    down they are live all the same, and only their announcements wait for a later run;
 * 5. IndexNow is told of each claimed post;
 * 6. the newsletter looks for it (it claims each reader's message itself, so it needs no claim here);
 * 7. a `Create` of each claimed post is queued for its followers on the fediverse (the durable queue
 *    sends it to each inbox once, retrying with backoff; on a platform, the cron call works the queue
 *    through after its answer, lib/publishing/endpoint.ts). It follows the claim; a crash between the
 *    two is made good by the next start, which queues the `Create` of a post that went live and was
 *    never queued (lib/fediverse/deploy.ts).
 *
 * Every step is in-process: the host runs the revalidation inside a request Next handles.
 */
export async function postsChanged(host: PostsChangedHost, options: { now: number; regenerate?: boolean }): Promise<PostsChanged> {
  const { now } = options;
  const live = publishedPosts(now);
  const list = buildRecord().builtList();
  const ahead = list ? aheadCount(list.dates, now) : undefined;
  const atBuild = list ? aheadCount(list.dates, list.builtAt) : undefined;
  let revalidated = false;
  if (options.regenerate || ahead === undefined || (ahead !== atBuild && ahead !== revalidatedAt)) {
    await host.revalidate();
    revalidatedAt = ahead;
    revalidated = true;
    host.refreshSearch();
    if (host.remakeReads && ahead !== undefined) await host.remakeReads(ahead);
  }
  let wentLive: LivePost[] | undefined;
  try {
    wentLive = await claimWentLive(host.claims(), live, now);
  } catch (error) {
    console.warn(`publish: the store is unavailable (${describeError(error)}); posts that went live are announced later`);
  }
  if (wentLive && wentLive.length > 0) await announce(wentLive, host.indexNow);
  const newsletter = await mail(host);
  if (wentLive && wentLive.length > 0 && host.fediverse) await federate(wentLive, host.fediverse);
  return {
    live: live.length,
    revalidated,
    wentLive: (wentLive ?? []).map((post) => post.url),
    claimed: wentLive !== undefined,
    ...(newsletter ? { newsletter } : {}),
  };
}

/**
 * Step 1, inside a request Next handles (Next's revalidation works only there, and takes effect
 * once that request is answered): every route's implicit tags include the root layout's, so one call
 * covers pages, feeds and files.
 */
export function revalidateOutputs(): void {
  revalidatePath('/', 'layout');
}

/** Step 5: IndexNow (when its key is set). A failure is logged: the post is live, and search engines find it by the sitemap. */
async function announce(posts: readonly LivePost[], settings: Pick<Settings, 'indexNow' | 'site'>): Promise<void> {
  if (!settings.indexNow.key) return;
  const urls = posts.map((post) => post.url);
  try {
    const submission = await submitToIndexNow(urls, settings);
    if (!submission.ok || !accepted(submission.batches)) console.warn(`publish: IndexNow did not accept ${urls.join(' ')}`);
  } catch (error) {
    console.warn(`publish: IndexNow failed (${describeError(error)})`);
  }
}

/** Step 7. A failure is logged: the post is live, and followers find it in the outbox. */
async function federate(posts: readonly LivePost[], deliver: NonNullable<PostsChangedHost['fediverse']>): Promise<void> {
  try {
    await deliver(posts.map((post) => post.slug));
  } catch (error) {
    console.warn(`fediverse: ${posts.map((post) => post.url).join(' ')} could not be queued for followers (${describeError(error)})`);
  }
}

/** Step 6. A failure is logged: the newsletter looks again by itself (lectern's server) or at the next cron call. */
async function mail(host: PostsChangedHost): Promise<StepResult | undefined> {
  try {
    return (await host.newsletter()) ?? undefined;
  } catch (error) {
    console.warn(`newsletter: sending paused (${describeError(error)}); it looks again later`);
    return undefined;
  }
}
