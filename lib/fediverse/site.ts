import { publishedPosts, site } from '../content';
import type { Limiter } from '../limits/limiter';
import { redisEvaluator, type RedisConnection } from '../redis/client';
import type { Settings } from '../settings';
import { siteFediverse, type SiteFediverse } from '.';
import { redisFediverseStores } from './redis-stores';
import { sqliteFediverseStores } from './stores';

/**
 * lectern's server's fediverse: the site's actor from FEDIVERSE_HANDLE and content/site.yaml, its
 * posts from the one list of live posts judged at `now` (the moment the server's reads have caught
 * up with), and Fedify's store and queue where lectern's store is: on its Redis connection when one is
 * configured (./redis-stores.ts: every instance shares them), else in DATA_DIR (./stores.ts).
 */
export function serverFediverse(
  settings: Pick<Settings, 'site' | 'store' | 'fediverse' | 'deployment'>,
  handle: string,
  now: () => number,
  services: { redis: RedisConnection | undefined; limiter: Limiter },
): SiteFediverse {
  const { redis } = services;
  return siteFediverse({
    stores: redis ? redisFediverseStores(redisEvaluator(redis)) : sqliteFediverseStores(settings.store.dataDir),
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
}
