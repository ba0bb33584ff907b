import { publishedPosts, site } from '../content';
import { redisEvaluator, type RedisConnection } from '../redis/client';
import type { Settings } from '../settings';
import { siteFediverse, type SiteFediverse } from '.';
import { fediverseQueueThread, QueueThreadEndedError } from './queue-thread';
import { redisFediverseStores } from './redis-stores';
import { sqliteFediverseStores } from './stores';

type ServerSettings = Pick<Settings, 'site' | 'store' | 'fediverse' | 'redis'>;

/**
 * The site's fediverse in this thread: the site's actor from FEDIVERSE_HANDLE and content/site.yaml,
 * its posts from the one list of live posts judged at `now`, and Fedify's store and queue where
 * lectern's store is: on its Redis connection when one is configured (./redis-stores.ts: every
 * instance shares them), else in DATA_DIR (./stores.ts). Its `part` listens to the queue here (the
 * queue's thread, ./queue-worker.ts, runs it).
 */
export function fediverseHere(settings: ServerSettings, handle: string, now: () => number, redis: RedisConnection | undefined): SiteFediverse {
  return siteFediverse({
    stores: redis ? redisFediverseStores(redisEvaluator(redis)) : sqliteFediverseStores(settings.store.dataDir),
    origin: settings.site.url,
    handle,
    allowPrivateAddress: settings.fediverse.allowPrivateAddress,
    now,
    posts: publishedPosts,
    profile: () => {
      const { name, summary } = site();
      return { name, summary };
    },
  });
}

/**
 * lectern's server's fediverse (./index.ts), with `now` the moment the server's reads have caught up
 * with: it answers the fediverse's requests in the server's thread, and its `part` runs the queue in
 * a thread of its own (./queue-thread.ts), which also queues each delivery: the fan-out to every
 * follower, the deliveries' signatures and sends, and incoming activities are not the readers'
 * thread's work. Stopped, the thread stops
 * first, then this thread's stores close.
 */
export function serverFediverse(settings: ServerSettings, handle: string, now: () => number, redis: RedisConnection | undefined): SiteFediverse {
  const here = fediverseHere(settings, handle, now, redis);
  const { site, store, fediverse, redis: redisSettings } = settings;
  const thread = fediverseQueueThread({ settings: { site, store, fediverse, redis: redisSettings }, handle });
  return {
    ...here,
    // Queued by the thread (it reads the followers and makes the fan-out); by this thread when none
    // runs, or when one ended before it answered (a post queued twice is sent twice with one ID:
    // servers keep it once).
    deliver: async (slugs) => {
      try {
        await (thread.deliver(slugs) ?? here.deliver(slugs));
      } catch (error) {
        if (!(error instanceof QueueThreadEndedError)) throw error;
        await here.deliver(slugs);
      }
    },
    part: {
      name: 'fediverse',
      start: () => thread.start(),
      async stop() {
        await thread.stop();
        await here.part.stop();
      },
    },
  };
}
