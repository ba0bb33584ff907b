import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeRedisAdapter, stripShebang } from '@/lib/limits/node-redis-adapter';
import { flushRedis, testRedisUrl } from '../../support/redis';

const URL = testRedisUrl(8);
const client = createClient({ url: URL });
beforeAll(async () => {
  await flushRedis(URL);
  await client.connect();
});
afterAll(() => client.quit());

const require = createRequire(import.meta.url);
const source = fs.readFileSync(require.resolve('@upstash/ratelimit'), 'utf8');
const limitScript = /var slidingWindowLimitScript = `([\s\S]*?)`;/.exec(source)?.[1] ?? '';

describe('nodeRedisAdapter on a stock Redis server', () => {
  it("cannot run the library's scripts as written (the shebang flag is Upstash's own)", async () => {
    await expect(client.eval(limitScript, { keys: ['k1', 'k0'], arguments: ['2', '1000', '60000', '1'] })).rejects.toThrow(/shebang|flag/i);
  });

  it("runs them with the shebang stripped, then by the library's hash", async () => {
    const adapter = nodeRedisAdapter(client);
    const libraryHash = createHash('sha1').update(limitScript).digest('hex');
    // Unknown until sent once: the library then sends the script itself.
    await expect(adapter.evalsha(libraryHash, ['a1', 'a0'], [2, 1000, 60_000, 1])).rejects.toThrow(/NOSCRIPT/);
    expect(await adapter.eval(limitScript, ['a1', 'a0'], [2, 1000, 60_000, 1])).toEqual([1, 2]);
    expect(await adapter.evalsha(libraryHash, ['a1', 'a0'], [2, 1000, 60_000, 1])).toEqual([0, 2]);
    expect(await adapter.evalsha(libraryHash, ['a1', 'a0'], [2, 1000, 60_000, 1])).toEqual([-1, 2]);
    expect(await client.get('a1')).toBe('2');
  });

  it('passes null and undefined arguments as empty strings', async () => {
    const adapter = nodeRedisAdapter(client);
    expect(await adapter.eval('return ARGV', [], [null, undefined, 3])).toEqual(['', '', '3']);
    expect(stripShebang('#!lua flags=allow-key-locking\nreturn 1')).toBe('return 1');
    expect(stripShebang('return 1')).toBe('return 1');
  });
});
