import { afterAll, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { connectRedis, failFastRedis, type FailFastRedis } from '@/lib/redis/client';
import { startRedis } from '../../support/redis';
import { freePort } from '../../support/site';

const opened: FailFastRedis[] = [];
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(opened.map((redis) => redis.close()));
  await Promise.all(stops.map((stop) => stop()));
});

describe('failFastRedis', () => {
  it('refuses commands at once while Redis is down, and works again by itself when it is back', async () => {
    const first = await startRedis();
    stops.push(first.stop);
    const redis = failFastRedis(first.url, { commandTimeoutMs: 2000 });
    opened.push(redis);
    expect(await redis.run((client) => client.set('key', 'one'))).toBe('OK');

    await first.stop();
    await expect(redis.run((client) => client.get('key'))).rejects.toThrow();

    const second = await startRedis({ port: first.port });
    stops.push(second.stop);
    await expect.poll(() => redis.run((client) => client.set('key', 'two')).catch(() => 'offline'), { timeout: 10_000, interval: 200 }).toBe('OK');
  });

  it('fails a command Redis does not answer after the command timeout', async () => {
    const server = await startRedis();
    stops.push(server.stop);
    const redis = failFastRedis(server.url, { commandTimeoutMs: 1000 });
    opened.push(redis);
    expect(await redis.run((client) => client.ping())).toBe('PONG');
    server.pause();
    try {
      await expect(redis.run((client) => client.get('key'))).rejects.toThrow('Redis did not answer within 1000 ms');
    } finally {
      server.resume();
    }
  });

  it('gives up waiting for a first connection that does not come', async () => {
    const redis = failFastRedis(`redis://127.0.0.1:${await freePort()}`, { commandTimeoutMs: 200 });
    opened.push(redis);
    await expect(redis.run((client) => client.ping())).rejects.toThrow(/Redis (is not connected|did not answer)/);
  });
});

describe('connectRedis', () => {
  it('connects to Upstash when both its settings are set, else to REDIS_URL, else to nothing', async () => {
    expect(connectRedis(parseSettings({}).redis)).toBeUndefined();
    const upstash = connectRedis(
      parseSettings({ UPSTASH_REDIS_REST_URL: 'https://example.upstash.io', UPSTASH_REDIS_REST_TOKEN: 't', REDIS_URL: 'redis://127.0.0.1:1' }).redis,
    );
    expect(upstash?.kind).toBe('upstash');
    const server = await startRedis();
    stops.push(server.stop);
    const connection = connectRedis(parseSettings({ REDIS_URL: server.url }).redis, 300);
    if (connection?.kind !== 'redis') throw new Error('expected a Redis server connection');
    opened.push(connection.redis);
    expect(await connection.redis.run((client) => client.ping())).toBe('PONG');
    server.pause();
    await expect(connection.redis.run((client) => client.get('key'))).rejects.toThrow('Redis did not answer within 300 ms');
    // A caller may wait less than the connection's own timeout.
    await expect(connection.redis.run((client) => client.get('key'), 100)).rejects.toThrow('Redis did not answer within 100 ms');
    server.resume();
  });
});
