import { Temporal } from '@js-temporal/polyfill';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failFastRedis, redisEvaluator, type FailFastRedis } from '@/lib/redis/client';
import { redisKvStore } from '@/lib/fediverse/redis-stores';
import { testRedisUrl } from '../../support/redis';

// Database 0, which no other test file uses; each test's keys under a namespace of its own.
let redis: FailFastRedis;
const namespaces: string[] = [];
const namespace = () => {
  const made = `test-fediverse-${crypto.randomUUID()}:`;
  namespaces.push(made);
  return made;
};

beforeAll(() => {
  redis = failFastRedis(testRedisUrl(0), { commandTimeoutMs: 2000 });
});

afterAll(async () => {
  for (const prefix of namespaces) {
    const keys = await redis.run((client) => client.keys(`${prefix}*`));
    if (keys.length > 0) await redis.run((client) => client.del(keys));
  }
  await redis.close();
});

const evaluator = () => redisEvaluator({ kind: 'redis', redis });

describe("the fediverse's key–value store on Redis", () => {
  it('keeps, reads, replaces and deletes JSON values by key', async () => {
    const kv = redisKvStore(evaluator(), namespace());
    expect(await kv.get(['lectern', 'keys'])).toBeUndefined();
    await kv.set(['lectern', 'keys'], [{ kty: 'RSA', n: 'abc' }]);
    expect(await kv.get(['lectern', 'keys'])).toEqual([{ kty: 'RSA', n: 'abc' }]);
    await kv.set(['lectern', 'keys'], { replaced: true });
    expect(await kv.get(['lectern', 'keys'])).toEqual({ replaced: true });
    await kv.delete(['lectern', 'keys']);
    expect(await kv.get(['lectern', 'keys'])).toBeUndefined();
  });

  it('forgets a value after its time to live', async () => {
    const kv = redisKvStore(evaluator(), namespace());
    await kv.set(['cache', 'https://remote.example/actor'], { id: 1 }, { ttl: Temporal.Duration.from({ milliseconds: 150 }) });
    expect(await kv.get(['cache', 'https://remote.example/actor'])).toEqual({ id: 1 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await kv.get(['cache', 'https://remote.example/actor'])).toBeUndefined();
  });

  it('sets a value only over the one expected (compare and swap): the first of two instances to keep keys wins', async () => {
    const kv = redisKvStore(evaluator(), namespace());
    const [first, second] = await Promise.all([kv.cas!(['lectern', 'keys'], undefined, 'first'), kv.cas!(['lectern', 'keys'], undefined, 'second')]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const kept = await kv.get(['lectern', 'keys']);
    expect(await kv.cas!(['lectern', 'keys'], 'neither', 'third')).toBe(false);
    expect(await kv.cas!(['lectern', 'keys'], kept, 'third')).toBe(true);
    expect(await kv.get(['lectern', 'keys'])).toBe('third');
  });

  it('lists the entries under a prefix of key parts, and only those, with keys of any characters', async () => {
    const kv = redisKvStore(evaluator(), namespace());
    const followers = ['https://a.example/users/one', 'https://b.example/@two*[x]?', 'https://c.example/u/three\\'];
    for (const id of followers) await kv.set(['lectern', 'followers', id], { id });
    await kv.set(['lectern', 'followers2', 'x'], { id: 'not a follower' });
    await kv.set(['lectern', 'keys'], 'keys');
    const listed = await Array.fromAsync(kv.list(['lectern', 'followers']));
    expect(listed.map((entry) => entry.key).sort()).toEqual(followers.map((id) => ['lectern', 'followers', id]).sort());
    expect(listed.map((entry) => (entry.value as { id: string }).id).sort()).toEqual([...followers].sort());
    expect(await Array.fromAsync(kv.list(['lectern']))).toHaveLength(5);
    expect(await Array.fromAsync(kv.list())).toHaveLength(5);
  });
});
