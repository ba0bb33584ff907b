import { fediverseSuite } from '../support/fediverse-suite';
import { startRedis } from '../support/redis';

// The fediverse's store and queue on lectern's Redis connection (REDIS_URL), on a Redis server of this file's own.
fediverseSuite('its store and queue on Redis', async () => {
  const redis = await startRedis();
  return { env: { REDIS_URL: redis.url }, stop: redis.stop };
});
