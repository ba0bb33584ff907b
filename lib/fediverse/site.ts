import { publishedPosts, site } from '../content';
import { memoryLimiter, type Limiter } from '../limits/limiter';
import { redisEvaluator, type RedisConnection } from '../redis/client';
import type { Part } from '../runtime/runtime';
import type { Settings } from '../settings';
import type { FediverseReads, SiteFediverse } from '.';
import { isKnown } from './kept';
import { fediverseRoute } from './paths';
import { fediverseQueueThread, QueueThreadEndedError } from './queue-thread';
import { reactionStore } from './reactions';
import { reactionPages, type ReactionPages } from './reactions-page';
import { redisFediverseStores } from './redis-stores';
import { sqliteFediverseStores, type FediverseStores } from './stores';

/** The settings groups the fediverse is made from on lectern's server (plain data: the queue's thread gets them too). */
export type FediverseSettings = Pick<Settings, 'site' | 'store' | 'fediverse' | 'deployment' | 'redis'>;

/**
 * What lectern's server runs of the fediverse: its reads, the delivery of posts that went live, its
 * part of the runtime, and what its post pages show of what came back (./reactions-page.ts).
 */
export type ServerFediverse = Pick<SiteFediverse, 'reads' | 'deliver' | 'part'> & { reactions: ReactionPages };

/** Fedify's store and queue where lectern's store is: on its Redis connection when one is configured (./redis-stores.ts: every instance shares them), else in DATA_DIR (./stores.ts). */
export function fediverseStores(settings: Pick<Settings, 'store' | 'fediverse'>, redis: RedisConnection | undefined): FediverseStores {
  const queueOptions = { sendTimeoutMs: settings.fediverse.sendTimeoutMs };
  return redis ? redisFediverseStores(redisEvaluator(redis), queueOptions) : sqliteFediverseStores(settings.store.dataDir, queueOptions);
}

/**
 * The site's federation in this thread, on `stores` (loads Fedify): the site's actor from
 * FEDIVERSE_HANDLE and content/site.yaml, its posts from the one list of live posts judged at `now`.
 * The server's thread answers requests with it; the queue's thread (./queue-worker.ts) listens to
 * the queue and queues deliveries with it, and takes no request (its limiter counts nothing).
 */
export async function fediverseOn(
  stores: FediverseStores,
  settings: FediverseSettings,
  handle: string,
  now: () => number,
  limiter: () => Limiter = () => memoryLimiter({ windowScale: 1 }),
): Promise<SiteFediverse> {
  const { siteFediverse } = await import('.');
  return siteFediverse({
    stores,
    origin: settings.site.url,
    handle,
    allowPrivateAddress: settings.fediverse.allowPrivateAddress,
    blockedDomains: settings.fediverse.blockedDomains,
    limiter,
    deployment: settings.deployment,
    now,
    posts: publishedPosts,
    profile: () => {
      const { name, summary, links } = site();
      return { name, summary, links };
    },
  });
}

/**
 * lectern's server's fediverse, `now` being the moment the server's reads have caught up with.
 *
 * Fedify (about 30 MiB of the idle server) is loaded only once the site is known on the fediverse:
 * at start when its store has the actor's keys (made the first time a server reads the actor: every
 * follow starts there), else at the first fediverse request, or at a go-live when another instance
 * has made the site known since. Until then the stores are open but nothing of Fedify runs.
 *
 * Once loaded, the server's thread answers the fediverse's requests, and the queue runs in a thread
 * of its own (./queue-thread.ts), which also queues each delivery: the fan-out to every follower, the
 * deliveries' signatures and sends, and incoming activities are not the readers' thread's work.
 * Stopped, the thread stops first, then this thread's stores close.
 */
export function serverFediverse(
  settings: FediverseSettings,
  handle: string,
  now: () => number,
  services: { redis: RedisConnection | undefined; limiter: Limiter },
  /** Makes a page anew in the read cache (a post's reactions changed). */
  remake: (path: string) => Promise<unknown>,
): ServerFediverse {
  const stores = fediverseStores(settings, services.redis);
  // Read without Fedify: a site nobody looked up has nothing to show, and its pages stay as they are.
  const reactions = reactionPages({ store: reactionStore(stores.kv), remake, timeZone: () => site().timezone });
  const { site: siteSettings, store, fediverse, deployment, redis } = settings;
  const thread = fediverseQueueThread({ settings: { site: siteSettings, store, fediverse, deployment, redis }, handle });
  let loading: Promise<SiteFediverse> | undefined;
  /** Whether the runtime has the part running (started and not stopped): a fediverse loaded meanwhile starts the queue's thread. */
  let running = false;

  const load = (): Promise<SiteFediverse> => {
    loading ??= fediverseOn(stores, settings, handle, now, () => services.limiter).then(async (here) => {
      if (running) await thread.start();
      return here;
    });
    return loading;
  };

  const reads: FediverseReads = (req, pathname) => {
    const route = fediverseRoute(req.method ?? 'GET', pathname, req.headers.accept);
    if (route !== 'fedify') return route;
    return load().then((here) => here.reads(req, pathname) as Promise<Response>);
  };

  const part: Part = {
    name: 'fediverse',
    async start() {
      running = true;
      if (loading || (await isKnown(stores.kv))) await load();
    },
    async stop() {
      running = false;
      await thread.stop();
      if (loading) await (await loading).part.stop();
      else stores.close();
    },
  };

  return {
    reads,
    async deliver(slugs) {
      if (!loading && !(await isKnown(stores.kv))) return;
      const here = await load();
      // Queued by the thread (it reads the followers and makes the fan-out); by this thread when none
      // runs, or when one ended before it answered (a post queued twice is sent twice with one ID:
      // servers keep it once).
      try {
        await (thread.deliver(slugs) ?? here.deliver(slugs));
      } catch (error) {
        if (!(error instanceof QueueThreadEndedError)) throw error;
        await here.deliver(slugs);
      }
    },
    part,
    reactions,
  };
}
