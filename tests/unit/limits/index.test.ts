import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { createLimiter, type Limiter } from '@/lib/limits';
import { writeRouteLimits } from '@/lib/limits/table';
import { connectRedis, type RedisConnection } from '@/lib/redis/client';
import { openStore } from '@/lib/services/store';
import { flushRedis, testRedisUrl } from '../../support/redis';
import { freePort } from '../../support/site';

const URL = testRedisUrl(7);
const connections: RedisConnection[] = [];
function connect(settings: Record<string, string>) {
  const connection = connectRedis(parseSettings(settings).redis);
  if (connection?.kind === 'redis') connections.push(connection);
  return connection;
}
beforeAll(() => flushRedis(URL));
afterAll(async () => {
  for (const connection of connections) if (connection.kind === 'redis') await connection.redis.close();
});

const { requests } = writeRouteLimits.subscribe;
async function decisions(limiter: Limiter, client: string, count: number) {
  const allowed: boolean[] = [];
  for (let index = 0; index < count; index += 1) allowed.push((await limiter.check('subscribe', client)).allowed);
  return allowed;
}

describe('createLimiter', () => {
  it('limits in memory without Redis', async () => {
    const limiter = createLimiter(parseSettings({}).limits, undefined);
    expect(limiter.name).toBe('memory');
    expect(await decisions(limiter, '198.51.100.1', requests + 1)).toEqual([...Array<boolean>(requests).fill(true), false]);
  });

  it('shares the counts of every instance on the same Redis, on the connection the store uses too', async () => {
    const settings = parseSettings({ REDIS_URL: URL });
    const connection = connect({ REDIS_URL: URL });
    const store = openStore(settings, { redis: connection });
    const first = createLimiter(settings.limits, connection);
    const second = createLimiter(settings.limits, connect({ REDIS_URL: URL }));
    expect(first.name).toBe('redis (memory when unavailable)');
    const client = `198.51.100.2-${Date.now()}`;
    expect(await decisions(first, client, requests - 1)).toEqual(Array<boolean>(requests - 1).fill(true));
    expect(await decisions(second, client, 2)).toEqual([true, false]);
    await store.ping();
    expect(store.kind).toBe('redis');
  });

  it('decides in memory while Redis is unreachable, within the Redis timeout', async () => {
    const down = `redis://127.0.0.1:${await freePort()}`;
    const limiter = createLimiter(parseSettings({ REDIS_URL: down, RATE_LIMIT_REDIS_TIMEOUT_MS: '100' }).limits, connect({ REDIS_URL: down }));
    expect(await decisions(limiter, '198.51.100.3', requests + 1)).toEqual([...Array<boolean>(requests).fill(true), false]);
  });

  it('scales every window by RATE_LIMIT_WINDOW_SCALE', async () => {
    const decision = await createLimiter(parseSettings({ RATE_LIMIT_WINDOW_SCALE: '0.5' }).limits, undefined).check('subscribe', '198.51.100.4');
    expect(decision.windowSeconds).toBe(writeRouteLimits.subscribe.windowSeconds / 2);
  });
});
