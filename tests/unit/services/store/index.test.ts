import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { connectRedis } from '@/lib/redis/client';
import { openStore } from '@/lib/services/store';
import { flushRedis, testRedisUrl } from '../../../support/redis';
import { freePort } from '../../../support/site';

const URL = testRedisUrl(10);
const data = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-store-'));
beforeAll(() => flushRedis(URL));
afterAll(() => fs.rmSync(data, { recursive: true, force: true }));

describe('openStore', () => {
  it('keeps the store in SQLite under DATA_DIR without Redis', async () => {
    const store = openStore(parseSettings({ DATA_DIR: data }));
    expect(store.kind).toBe('sqlite');
    await store.ping();
    await store.close();
    expect(fs.existsSync(path.join(data, 'lectern.db'))).toBe(true);
  });

  it('keeps the store in Redis when REDIS_URL is set, whatever DATA_DIR says', async () => {
    const elsewhere = path.join(data, 'unused');
    const store = openStore(parseSettings({ REDIS_URL: URL, DATA_DIR: elsewhere }));
    expect(store.kind).toBe('redis');
    await store.ping();
    await store.settings.set('probe', 'kept');
    const again = openStore(parseSettings({ REDIS_URL: URL }));
    expect(await again.settings.get('probe')).toBe('kept');
    await Promise.all([store.close(), again.close()]);
    expect(fs.existsSync(elsewhere)).toBe(false);
  });

  it('works on a connection it is given, which it closes with itself', async () => {
    const connection = connectRedis(parseSettings({ REDIS_URL: URL }).redis)!;
    const store = openStore(parseSettings({}), { redis: connection });
    expect(store.kind).toBe('redis');
    expect(await store.settings.get('probe')).toBe('kept');
    await store.close();
    expect(connection.kind === 'redis' && connection.redis.client.isOpen).toBe(false);
  });

  it('answers within its Redis timeout when Redis is unreachable', async () => {
    const store = openStore(parseSettings({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` }), { redisTimeoutMs: 200 });
    await expect(store.ping()).rejects.toThrow(/Redis (is not connected|did not answer within 200 ms)/);
    await store.close();
  });
});
