import type { KvKey } from '@fedify/fedify';
import type { Post } from '../content';
import type { Limiter } from '../limits/limiter';
import { describeError } from '../log';
import type { Evaluator } from '../redis/lua';
import type { Settings } from '../settings';
import type { ActorProfile } from './federation';
import type { SiteFediverse } from '.';
import { isKnown, KEPT } from './kept';
import { fediverseRoute } from './paths';
import { redisFediverseStores } from './redis-stores';

/**
 * How long a cron call of /api/publish goes on delivering after its answer: under the route's
 * `maxDuration` (60 s), beside the newsletter's NEWSLETTER_BUDGET_SECONDS (40 by default).
 */
export const CRON_DELIVERY_BUDGET_MS = 40_000;
/** How long an inbox post's instance goes on with what it queued (the `Accept` of a follow) after its answer. */
export const INBOX_DELIVERY_BUDGET_MS = 10_000;
/** A queue that handed out nothing for this long is done with for the call: what is due later waits for a later one. */
const IDLE_MS = 1_000;

/** What one pass over the queue did: the messages it handled, and whether it stopped for its budget (messages may be due still). */
export type QueuePass = { handled: number; budgetSpent: boolean };

/**
 * The site on the fediverse where only Next runs lectern (PLATFORM_MODE: short-lived instances, no
 * process between requests). Its store and queue are on Upstash (or REDIS_URL), shared by every
 * instance (./redis-stores.ts); nothing listens to the queue in the background: the queue is worked
 * through in bounded passes by the requests that fill it (an inbox post, after its answer) and by
 * every cron call of /api/publish (lib/publishing/endpoint.ts), which also takes up what earlier
 * calls left (retries whose time has come, a pass cut short).
 */
export type PlatformFediverse = {
  /** Answers a request ./paths.ts gives to Fedify, `pathname` and `search` being the URL it was asked on. */
  respond: (request: Request, pathname: string, search: string) => Promise<Response>;
  /** Posts went live: a `Create` of each is queued for its followers (posts-changed step 7). */
  deliver: (slugs: readonly string[]) => Promise<void>;
  /** Works through the queue's due messages until none is handed out for a second or `budgetMs` is spent. */
  work: (budgetMs: number) => Promise<QueuePass>;
};

export type PlatformFediverseOptions = {
  redis: Evaluator;
  /** The site's public URL (SITE_URL). */
  origin: string;
  handle: string;
  /** The build's own mark (its time): what a deploy changed is sent once per build. */
  build: string;
  allowPrivateAddress: boolean;
  blockedDomains: readonly string[];
  /** How long one activity's send to a server may take (FEDIVERSE_SEND_TIMEOUT_SECONDS). */
  sendTimeoutMs?: number;
  /** The inbox's limits are counted on lectern's limiter (on Upstash), the client address found as for the write routes. */
  limiter: () => Limiter;
  deployment: Settings['deployment'];
  now: () => number;
  posts: (at: number) => readonly Post[];
  profile: () => ActorProfile;
  log?: Pick<Console, 'warn' | 'log'>;
};

/**
 * The platform's fediverse, made once per process (lib/runtime). Fedify is loaded on the first
 * request that needs it, as on lectern's server (./site.ts): a go-live or a cron call on a site
 * nobody has looked up yet loads nothing.
 */
export function platformFediverse(options: PlatformFediverseOptions): PlatformFediverse {
  const { origin } = options;
  const log = options.log ?? console;
  const stores = redisFediverseStores(options.redis, { sendTimeoutMs: options.sendTimeoutMs });
  let loading: Promise<SiteFediverse> | undefined;
  const load = (): Promise<SiteFediverse> => {
    loading ??= import('.')
      .then(({ siteFediverse }) => siteFediverse({ ...options, stores, log }))
      .catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
    return loading;
  };

  /**
   * Once per build, whichever instance's pass comes first: what the deploy changed is queued
   * (`Update`, `Delete`), and the first time the moment the site went on the fediverse is recorded
   * (a post live before it is never announced; one that goes live after it is).
   */
  async function deployedOnce(fediverse: SiteFediverse): Promise<void> {
    const mark: KvKey = [...KEPT.deployed, options.build];
    const claimed = stores.kv.cas ? await stores.kv.cas(mark, undefined, Date.now()) : (await stores.kv.get(mark)) === undefined;
    if (!claimed) return;
    if (!stores.kv.cas) await stores.kv.set(mark, Date.now());
    if (!(await fediverse.deployed())) await stores.kv.delete(mark);
  }

  async function work(budgetMs: number): Promise<QueuePass> {
    if (!loading && !(await isKnown(stores.kv))) return { handled: 0, budgetSpent: false };
    const fediverse = await load();
    await deployedOnce(fediverse);
    const { federation } = fediverse;
    const until = Date.now() + budgetMs;
    const controller = new AbortController();
    let handled = 0;
    let inFlight = 0;
    let lastActive = Date.now();
    let budgetSpent = false;
    const watch = setInterval(() => {
      if (Date.now() >= until) budgetSpent = true;
      if (budgetSpent || (inFlight === 0 && Date.now() - lastActive >= IDLE_MS)) controller.abort();
    }, 100);
    try {
      // A listener of this pass's own on the shared queue (Fedify's startQueue starts one per
      // federation for good): each message is taken by one instance, and handled by Fedify.
      await stores.queue.listen(
        async (message: unknown) => {
          inFlight += 1;
          try {
            await federation.processQueuedTask(undefined, message as Parameters<typeof federation.processQueuedTask>[1]);
            handled += 1;
          } finally {
            inFlight -= 1;
            lastActive = Date.now();
          }
        },
        { signal: controller.signal },
      );
    } finally {
      clearInterval(watch);
    }
    return { handled, budgetSpent };
  }

  return {
    async respond(request, pathname, search) {
      const fediverse = await load();
      // The URL the request was made on (IDs and signatures are made on the site's public URL).
      const url = new URL(`${pathname}${search}`, origin);
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body;
      const asked = new Request(url, { method: request.method, headers: request.headers, body, duplex: 'half' } as RequestInit & { duplex: 'half' });
      return fediverse.respond(asked);
    },
    async deliver(slugs) {
      if (!loading && !(await isKnown(stores.kv))) return;
      await (await load()).deliver(slugs);
    },
    async work(budgetMs) {
      try {
        return await work(budgetMs);
      } catch (error) {
        log.warn(`fediverse: the queue is taken up again by a later request or cron call (${describeError(error)})`);
        return { handled: 0, budgetSpent: false };
      }
    },
  };
}

/** Whether a request on `pathname` is the fediverse's to answer (./paths.ts): a browser on the actor's URL is not. */
export function answeredByFediverse(method: string, pathname: string, accept: string | null): boolean {
  return fediverseRoute(method, pathname, accept ?? undefined) === 'fedify';
}
