import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions, MessageQueue, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';
import { describeError } from '../log';
import { luaScript, scriptRunner, type Evaluator } from '../redis/lua';
import { deliveryLedger, durableQueue } from './durable-queue';
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
const ENQUEUE = luaScript({ keys: ['queue'], args: ['due', 'message'] }, `return redis.call('ZADD', queue, due, message)`);
/** Takes the first message due by `now` off the queue (one taker per message, whatever the instances). */
const TAKE = luaScript(
  { keys: ['queue'], args: ['now'] },
  `local due = redis.call('ZRANGEBYSCORE', queue, '-inf', now, 'LIMIT', 0, 1)
if due[1] == nil then return false end
redis.call('ZREM', queue, due[1])
return due[1]`,
);

const QUEUE = 'queue';
/** How many failed looks at the queue in a row make a line in the log. */
const FAILURES_WORTH_A_LINE = 5;
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
 * Fedify's message queue on Redis: a sorted set of messages by the moment each is due. A listener
 * takes one due message at a time in one script (so each is taken by one instance), then handles
 * it: like the SQLite queue, a message is off the queue before it is handled, so a crash in the
 * middle of one loses it rather than handling it twice; Fedify retries a failed one by queueing it
 * again with a delay. A listener looks every `pollMs`, and at once when this process queues one.
 * Messages are not ordered by `orderingKey`: lectern sends nothing whose order matters yet.
 */
export function redisMessageQueue(redis: Evaluator, options: { namespace?: string; pollMs?: number; log?: Pick<Console, 'warn'> } = {}): MessageQueue {
  const run = scriptRunner(redis, options.namespace ?? FEDIVERSE_NAMESPACE);
  const pollMs = options.pollMs ?? 1000;
  const log = options.log ?? console;
  const queued = new EventTarget();
  const enqueue = async (message: unknown, enqueueOptions?: MessageQueueEnqueueOptions) => {
    const delay = enqueueOptions?.delay ? Math.max(0, enqueueOptions.delay.total('millisecond')) : 0;
    const entry = JSON.stringify({ id: crypto.randomUUID(), message });
    await run(ENQUEUE, { keys: { queue: QUEUE }, args: { due: Date.now() + delay, message: entry } });
    queued.dispatchEvent(new CustomEvent('queued', { detail: delay }));
  };
  return {
    nativeRetrial: false,
    enqueue,
    async enqueueMany(messages, enqueueOptions) {
      for (const message of messages) await enqueue(message, enqueueOptions);
    },
    async listen(handler, listenOptions: MessageQueueListenOptions = {}) {
      const { signal } = listenOptions;
      // A look that fails is tried again at the next; only a run of them is worth a line (a busy minute can make one slow).
      let failures = 0;
      while (!signal?.aborted) {
        let taken: unknown;
        try {
          taken = await run(TAKE, { keys: { queue: QUEUE }, args: { now: Date.now() } });
          failures = 0;
        } catch (error) {
          failures += 1;
          if (failures % FAILURES_WORTH_A_LINE === 0)
            log.warn(`fediverse: the queue could not be read ${failures} times in a row (${describeError(error)}); it looks again shortly`);
        }
        if (typeof taken === 'string') {
          try {
            await handler((JSON.parse(taken) as { message: unknown }).message);
          } catch (error) {
            log.warn(`fediverse: a queued task failed (${describeError(error)})`);
          }
          continue;
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            queued.removeEventListener('queued', onQueued);
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const onQueued = (event: Event) => {
            const delay = (event as CustomEvent<number>).detail;
            if (delay < 1) done();
          };
          const timer = setTimeout(done, pollMs);
          queued.addEventListener('queued', onQueued);
          signal?.addEventListener('abort', done);
        });
      }
    },
  };
}

/**
 * The fediverse's store and queue on the Redis connection lectern's store runs on (REDIS_URL or
 * Upstash): shared by every instance, closed with the store. The queue is durable and leased
 * (./durable-queue.ts): each message is handled by one instance at a time, and each activity is
 * delivered once per inbox whatever the instances.
 */
export function redisFediverseStores(redis: Evaluator): FediverseStores {
  const kv = redisKvStore(redis);
  return { kv, queue: durableQueue(redisQueueBackend(redis, FEDIVERSE_NAMESPACE), { ledger: deliveryLedger(kv) }), close: () => undefined };
}
