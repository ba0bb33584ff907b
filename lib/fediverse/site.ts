import { publishedPosts, site } from '../content';
import type { Limiter } from '../limits/limiter';
import { redisEvaluator, type RedisConnection } from '../redis/client';
import type { Part } from '../runtime/runtime';
import type { Settings } from '../settings';
import type { FediverseReads, SiteFediverse } from '.';
import { isKnown } from './kept';
import { fediverseRoute } from './paths';
import { reactionStore } from './reactions';
import { reactionPages, type ReactionPages } from './reactions-page';
import { redisFediverseStores } from './redis-stores';
import { sqliteFediverseStores, type FediverseStores } from './stores';

/**
 * What lectern's server runs of the fediverse: its reads, the delivery of posts that went live, its
 * part of the runtime, and what its post pages show of what came back (./reactions-page.ts).
 */
export type ServerFediverse = Pick<SiteFediverse, 'reads' | 'deliver' | 'part'> & { reactions: ReactionPages };

/**
 * lectern's server's fediverse: the site's actor from FEDIVERSE_HANDLE and content/site.yaml, its
 * posts from the one list of live posts judged at `now` (the moment the server's reads have caught
 * up with), and Fedify's store and queue where lectern's store is: on its Redis connection when one is
 * configured (./redis-stores.ts: every instance shares them), else in DATA_DIR (./stores.ts).
 *
 * Fedify (about 30 MiB of the idle server) is loaded only once the site is known on the fediverse:
 * at start when its store has the actor's keys (made the first time a server reads the actor: every
 * follow starts there), else at the first fediverse request, or at a go-live when another instance
 * has made the site known since. Until then the stores are open but nothing of Fedify runs.
 */
export function serverFediverse(
  settings: Pick<Settings, 'site' | 'store' | 'fediverse' | 'deployment'>,
  handle: string,
  now: () => number,
  services: { redis: RedisConnection | undefined; limiter: Limiter },
  /** Makes a page anew in the read cache (a post's reactions changed). */
  remake: (path: string) => Promise<unknown>,
): ServerFediverse {
  const { redis } = services;
  const stores: FediverseStores = redis ? redisFediverseStores(redisEvaluator(redis)) : sqliteFediverseStores(settings.store.dataDir);
  // Read without Fedify: a site nobody looked up has nothing to show, and its pages stay as they are.
  const reactions = reactionPages({ store: reactionStore(stores.kv), remake, timeZone: () => site().timezone });
  let loading: Promise<SiteFediverse> | undefined;
  /** Whether the runtime has the part running (started and not stopped): a fediverse loaded meanwhile starts its queue. */
  let running = false;

  const load = (): Promise<SiteFediverse> => {
    loading ??= import('.').then(async ({ siteFediverse }) => {
      const fediverse = siteFediverse({
        stores,
        origin: settings.site.url,
        handle,
        allowPrivateAddress: settings.fediverse.allowPrivateAddress,
        blockedDomains: settings.fediverse.blockedDomains,
        limiter: () => services.limiter,
        deployment: settings.deployment,
        now,
        posts: publishedPosts,
        profile: () => {
          const { name, summary, links } = site();
          return { name, summary, links };
        },
      });
      if (running) await fediverse.part.start();
      return fediverse;
    });
    return loading;
  };

  const reads: FediverseReads = (req, pathname) => {
    const route = fediverseRoute(req.method ?? 'GET', pathname, req.headers.accept);
    if (route !== 'fedify') return route;
    return load().then((fediverse) => fediverse.reads(req, pathname) as Promise<Response>);
  };

  const part: Part = {
    name: 'fediverse',
    async start() {
      running = true;
      if (loading || (await isKnown(stores.kv))) await load();
    },
    async stop() {
      running = false;
      if (loading) await (await loading).part.stop();
      else stores.close();
    },
  };

  return {
    reads,
    async deliver(slugs) {
      if (!loading && !(await isKnown(stores.kv))) return;
      await (await load()).deliver(slugs);
    },
    part,
    reactions,
  };
}
