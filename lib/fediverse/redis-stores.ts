import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';
import { luaScript, scriptRunner, type Evaluator } from '../redis/lua';
import { deliveryLedger, durableQueue, type DurableQueueOptions } from './durable-queue';
import { redisQueueBackend } from './durable-stores';
import type { FediverseStores } from './stores';

/** Every key of the fediverse's store and queue starts with this (the store's own start with `lectern:store:`). */
export const FEDIVERSE_NAMESPACE = 'lectern:fediverse:';

const GET = luaScript({ keys: ['entry'] }, `return redis.call('GET', entry)`);
const SET = luaScript(
  { keys: ['entry'], args: ['value', 'ttl'] },
  `if tonumber(ttl) > 0 then redis.call('SET', entry, value, 'PX', ttl) else redis.call('SET', entry, value) end
return 1`,
);
const DELETE = luaScript({ keys: ['entry'] }, `return redis.call('DEL', entry)`);
/** Sets the value when the one there is `expected` (`absent` = 1: when there is none). */
const CAS = luaScript(
  { keys: ['entry'], args: ['absent', 'expected', 'value', 'ttl'] },
  `local current = redis.call('GET', entry)
if (absent == '1' and current ~= false) or (absent == '0' and current ~= expected) then return 0 end
if tonumber(ttl) > 0 then redis.call('SET', entry, value, 'PX', ttl) else redis.call('SET', entry, value) end
return 1`,
);
/** One step of a SCAN over the entries whose names match `pattern`: the next cursor, then name and value pairs. */
const LIST = luaScript(
  { args: ['cursor', 'pattern'] },
  `local found = redis.call('SCAN', cursor, 'MATCH', pattern, 'COUNT', 500)
local out = { found[1] }
for _, name in ipairs(found[2]) do
  local value = redis.call('GET', name)
  if value then table.insert(out, name) table.insert(out, value) end
end
return out`,
);
/** A key as stored: its parts as JSON, so a prefix of parts is a prefix of the string (`["a","b"` starts `["a","b","c"]`). */
const entryName = (key: KvKey) => `kv:${JSON.stringify(key)}`;
/** A SCAN pattern that matches `text` literally. */
const globEscaped = (text: string) => text.replace(/[\\*?[\]]/g, (char) => `\\${char}`);
const ttlMs = (options?: KvStoreSetOptions) => (options?.ttl ? Math.max(1, Math.round(options.ttl.total('millisecond'))) : 0);

/**
 * Fedify's key–value store on Redis (the connection lectern's store and limits share), every
 * operation one Lua script, so it runs on Upstash too. Values are JSON.
 */
export function redisKvStore(redis: Evaluator, namespace = FEDIVERSE_NAMESPACE): KvStore {
  const run = scriptRunner(redis, namespace);
  return {
    async get<T = unknown>(key: KvKey): Promise<T | undefined> {
      const value = await run(GET, { keys: { entry: entryName(key) } });
      return typeof value === 'string' ? (JSON.parse(value) as T) : undefined;
    },
    async set(key, value, options) {
      await run(SET, { keys: { entry: entryName(key) }, args: { value: JSON.stringify(value), ttl: ttlMs(options) } });
    },
    async delete(key) {
      await run(DELETE, { keys: { entry: entryName(key) } });
    },
    async cas(key, expectedValue, newValue, options) {
      const absent = expectedValue === undefined;
      const args = { absent: absent ? '1' : '0', expected: absent ? '' : JSON.stringify(expectedValue), value: JSON.stringify(newValue), ttl: ttlMs(options) };
      return (await run(CAS, { keys: { entry: entryName(key) }, args })) === 1;
    },
    async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
      const start = `${namespace}kv:${prefix ? JSON.stringify(prefix).slice(0, -1) : '['}`;
      const pattern = `${globEscaped(start)}*`;
      const seen = new Set<string>();
      let cursor = '0';
      do {
        const [next, ...pairs] = (await run(LIST, { args: { cursor, pattern } })) as string[];
        cursor = String(next);
        for (let index = 0; index + 1 < pairs.length; index += 2) {
          const name = pairs[index]!;
          // SCAN may give a key twice; each entry is listed once.
          if (seen.has(name)) continue;
          seen.add(name);
          yield { key: JSON.parse(name.slice(`${namespace}kv:`.length)) as KvKey, value: JSON.parse(pairs[index + 1]!) as unknown };
        }
      } while (cursor !== '0');
    },
  };
}

/**
 * The fediverse's store and queue on the Redis connection lectern's store runs on (REDIS_URL or
 * Upstash): shared by every instance, closed with the store. The queue is durable and leased
 * (./durable-queue.ts): each message is handled by one instance at a time, and each activity is
 * delivered once per inbox whatever the instances.
 */
export function redisFediverseStores(redis: Evaluator, queueOptions: Pick<DurableQueueOptions, 'sendTimeoutMs'> = {}): FediverseStores {
  const kv = redisKvStore(redis);
  const queue = durableQueue(redisQueueBackend(redis, FEDIVERSE_NAMESPACE), { ...queueOptions, ledger: deliveryLedger(kv) });
  return { kv, queue, close: () => undefined };
}
