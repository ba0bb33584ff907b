import type { DatabaseSync } from 'node:sqlite';
import { luaScript, scriptRunner, type Evaluator } from '../redis/lua';
import { ownerIsDead, type QueueBackend, type QueueEntry, type QueuedMessage } from './durable-queue';

/**
 * The durable queue's messages in SQLite (the fediverse's own file, ./stores.ts): one row each, with
 * the lease of the process handling it. Every statement is one step of SQLite's (a take is one
 * UPDATE … RETURNING), so two processes on one file never take the same message.
 */
export function sqliteQueueBackend(db: DatabaseSync, table = 'lectern_queue'): QueueBackend {
  db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (
    id TEXT PRIMARY KEY,
    message TEXT NOT NULL,
    due INTEGER NOT NULL,
    owner TEXT,
    lease INTEGER
  )`);
  db.exec(`CREATE INDEX IF NOT EXISTS "${table}_due" ON "${table}" (due)`);
  const insert = db.prepare(`INSERT INTO "${table}" (id, message, due) VALUES (?, ?, ?)`);
  const take = db.prepare(`UPDATE "${table}" SET owner = ?, lease = ?
    WHERE id = (SELECT id FROM "${table}" WHERE due <= ? AND (lease IS NULL OR lease <= ?) ORDER BY due LIMIT 1)
    RETURNING id, message`);
  const renew = db.prepare(`UPDATE "${table}" SET lease = ? WHERE id = ? AND owner = ?`);
  const remove = db.prepare(`DELETE FROM "${table}" WHERE id = ?`);
  const leased = db.prepare(`SELECT DISTINCT owner FROM "${table}" WHERE lease IS NOT NULL`);
  const release = db.prepare(`UPDATE "${table}" SET owner = NULL, lease = NULL WHERE owner = ?`);
  const inTransaction = (work: () => void) => {
    db.exec('BEGIN IMMEDIATE');
    try {
      work();
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };
  const putAll = (messages: readonly QueuedMessage[]) => {
    for (const { message, due } of messages) insert.run(crypto.randomUUID(), JSON.stringify(message), Math.round(due));
  };
  return {
    async put(messages) {
      inTransaction(() => putAll(messages));
    },
    async take(now, owner, until) {
      const row = take.get(owner, Math.round(until), Math.round(now), Math.round(now)) as { id: string; message: string } | undefined;
      return row ? { id: row.id, message: JSON.parse(row.message) as unknown } : undefined;
    },
    async renew(id, owner, until) {
      renew.run(Math.round(until), id, owner);
    },
    async finish(id, then) {
      inTransaction(() => {
        remove.run(id);
        putAll(then);
      });
    },
    async releaseDead(self) {
      let released = 0;
      for (const { owner } of leased.all() as { owner: string }[]) {
        if (ownerIsDead(owner, self)) released += Number(release.run(owner).changes);
      }
      return released;
    },
  };
}

// The Redis queue: `due` (a sorted set of message IDs by the moment each is due), `leased` (the IDs
// taken, by the moment their lease runs out), `owners` and `messages` (hashes by ID).
const KEYS = ['due', 'leased', 'owners', 'messages'] as const;

const PUT = luaScript(
  { keys: KEYS, args: ['entries'] },
  `for _, entry in ipairs(cjson.decode(entries)) do
  redis.call('HSET', messages, entry[1], entry[2])
  redis.call('ZADD', due, entry[3], entry[1])
end
return 1`,
);
/** Leases lapsed (their process is gone) go back to being due; then the first message due is leased to `owner`. */
const TAKE = luaScript(
  { keys: KEYS, args: ['now', 'owner', 'leaseEnd'] },
  `for _, id in ipairs(redis.call('ZRANGEBYSCORE', leased, '-inf', now, 'LIMIT', 0, 100)) do
  redis.call('ZREM', leased, id)
  redis.call('HDEL', owners, id)
  redis.call('ZADD', due, now, id)
end
local first = redis.call('ZRANGEBYSCORE', due, '-inf', now, 'LIMIT', 0, 1)[1]
if not first then return false end
redis.call('ZREM', due, first)
redis.call('ZADD', leased, leaseEnd, first)
redis.call('HSET', owners, first, owner)
return { first, redis.call('HGET', messages, first) }`,
);
const RENEW = luaScript(
  { keys: KEYS, args: ['id', 'owner', 'leaseEnd'] },
  `if redis.call('HGET', owners, id) == owner then redis.call('ZADD', leased, 'XX', leaseEnd, id) end
return 1`,
);
const FINISH = luaScript(
  { keys: KEYS, args: ['id', 'entries'] },
  `redis.call('ZREM', leased, id)
redis.call('ZREM', due, id)
redis.call('HDEL', owners, id)
redis.call('HDEL', messages, id)
for _, entry in ipairs(cjson.decode(entries)) do
  redis.call('HSET', messages, entry[1], entry[2])
  redis.call('ZADD', due, entry[3], entry[1])
end
return 1`,
);

/**
 * The durable queue's messages on Redis (the connection lectern's store runs on), each step one Lua
 * script, so every instance shares the queue and a message is leased to one of them at a time; a
 * lease whose instance died runs out and the message is taken again by another.
 */
export function redisQueueBackend(redis: Evaluator, namespace: string): QueueBackend {
  const run = scriptRunner(redis, `${namespace}mq:`);
  const keys = { due: 'due', leased: 'leased', owners: 'owners', messages: 'messages' };
  const entries = (messages: readonly QueuedMessage[]) =>
    JSON.stringify(messages.map(({ message, due }) => [crypto.randomUUID(), JSON.stringify(message), Math.round(due)]));
  return {
    async put(messages) {
      if (messages.length > 0) await run(PUT, { keys, args: { entries: entries(messages) } });
    },
    async take(now, owner, until): Promise<QueueEntry | undefined> {
      const taken = await run(TAKE, { keys, args: { now: Math.round(now), owner, leaseEnd: Math.round(until) } });
      if (!Array.isArray(taken) || typeof taken[1] !== 'string') return undefined;
      return { id: String(taken[0]), message: JSON.parse(taken[1]) as unknown };
    },
    async renew(id, owner, until) {
      await run(RENEW, { keys, args: { id, owner, leaseEnd: Math.round(until) } });
    },
    async finish(id, then) {
      await run(FINISH, { keys, args: { id, entries: entries(then) } });
    },
  };
}
