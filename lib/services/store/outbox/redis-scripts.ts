import { luaScript } from '../../../redis/lua';

/**
 * A Lua function for the scripts that queue mail with their own write: the
 * mails (a JSON list) under the ids of a second JSON list, due at `now`.
 */
export const QUEUE_MAILS = `
local function queueMails(mailPrefix, outbox, mails, ids, now)
  local mailIds = cjson.decode(ids)
  for i, mail in ipairs(cjson.decode(mails)) do
    redis.call('HSET', mailPrefix .. mailIds[i], 'mail', cjson.encode(mail), 'attempts', 0, 'created', now)
    redis.call('ZADD', outbox, now, mailIds[i])
  end
end`;

// Whether a waiting mail is held by this claim (kept in its hash until it is settled, retried later or given back).
const HELD = `
local function held(outbox, mail, id, claim)
  return redis.call('ZSCORE', outbox, id) ~= false and redis.call('HGET', mail, 'claim') == claim
end`;

export const CLAIM = luaScript(
  { keys: ['outbox', 'mailPrefix'], args: ['now', 'limit', 'leaseMs', 'claim'] },
  `
local ids = redis.call('ZRANGEBYSCORE', outbox, '-inf', now, 'LIMIT', 0, tonumber(limit))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', outbox, tonumber(now) + tonumber(leaseMs), id)
  redis.call('HSET', mailPrefix .. id, 'claim', claim)
  local entry = redis.call('HMGET', mailPrefix .. id, 'mail', 'attempts', 'created')
  table.insert(out, { id, entry[1], entry[2], entry[3] })
end
return out`,
);

/** The ids of `ids` the claim still holds, each leased again until `now + leaseMs`. */
export const RENEW = luaScript(
  { keys: ['outbox', 'mailPrefix'], args: ['ids', 'claim', 'now', 'leaseMs'] },
  HELD,
  `
local out = {}
for _, id in ipairs(cjson.decode(ids)) do
  if held(outbox, mailPrefix .. id, id, claim) then
    redis.call('ZADD', outbox, tonumber(now) + tonumber(leaseMs), id)
    table.insert(out, id)
  end
end
return out`,
);

export const MARK_SENT = luaScript(
  { keys: ['outbox', 'mail', 'sent'], args: ['id', 'claim', 'now'] },
  HELD,
  `
if not held(outbox, mail, id, claim) then return 0 end
redis.call('ZREM', outbox, id)
redis.call('HDEL', mail, 'claim')
redis.call('HSET', mail, 'sent', now)
redis.call('ZADD', sent, now, id)
return 1`,
);

export const RETRY_LATER = luaScript(
  { keys: ['outbox', 'mail'], args: ['id', 'claim', 'nextAttemptAt', 'attempts', 'lastError'] },
  HELD,
  `
if not held(outbox, mail, id, claim) then return 0 end
redis.call('ZADD', outbox, nextAttemptAt, id)
redis.call('HDEL', mail, 'claim')
redis.call('HSET', mail, 'attempts', attempts, 'error', lastError)
return 1`,
);

/** Failed for good: out of the queue, and purged with the sent mail once older than the retention. */
export const MARK_FAILED = luaScript(
  { keys: ['outbox', 'mail', 'sent'], args: ['id', 'claim', 'now', 'attempts', 'lastError'] },
  HELD,
  `
if not held(outbox, mail, id, claim) then return 0 end
redis.call('ZREM', outbox, id)
redis.call('HDEL', mail, 'claim')
redis.call('HSET', mail, 'failed', now, 'attempts', attempts, 'error', lastError)
redis.call('ZADD', sent, now, id)
return 1`,
);

/** Claims given back: due at `now`, for the ids the claim still holds (a sent one left the outbox and stays out). */
export const RELEASE = luaScript(
  { keys: ['outbox', 'mailPrefix'], args: ['now', 'ids', 'claim'] },
  HELD,
  `
for _, id in ipairs(cjson.decode(ids)) do
  if held(outbox, mailPrefix .. id, id, claim) then
    redis.call('ZADD', outbox, now, id)
    redis.call('HDEL', mailPrefix .. id, 'claim')
  end
end
return 1`,
);

/** Sent mail older than `sentBefore`, at most `batch` at a time. */
export const PURGE_SENT = luaScript(
  { keys: ['sent', 'mailPrefix'], args: ['sentBefore', 'batch'] },
  `
local ids = redis.call('ZRANGEBYSCORE', sent, '-inf', '(' .. sentBefore, 'LIMIT', 0, tonumber(batch))
for _, id in ipairs(ids) do
  redis.call('DEL', mailPrefix .. id)
  redis.call('ZREM', sent, id)
end
return #ids`,
);
