import { luaScript } from '../../../redis/lua';

/*
 * Keys: `newsletter:baseline` (set once), `newsletter:posts` (slug → state),
 * `newsletter:sends` and `newsletter:active` (slugs by start), per send
 * `newsletter:send:{slug}` (the mail once, the counts), `newsletter:queue:{slug}`
 * (each waiting address by the time it is due: claiming pushes that time past
 * the lease), `newsletter:claims:{slug}` (each claimed address's claim, until
 * it is settled, retried later or given back) and `newsletter:deliveries:{slug}`
 * (attempts and errors of the addresses that needed more than one try), and
 * `newsletter:rejections`.
 */

export const RECORD_BASELINE = luaScript(
  { keys: ['baseline', 'posts'], args: ['slugs', 'now'] },
  `
if redis.call('EXISTS', baseline) == 1 then return 0 end
redis.call('SET', baseline, now)
for _, slug in ipairs(cjson.decode(slugs)) do redis.call('HSETNX', posts, slug, 'baseline') end
return 1`,
);

export const RECORDED = luaScript(
  { keys: ['baseline', 'posts'], args: ['slugs'] },
  `
if redis.call('EXISTS', baseline) == 0 then return false end
local out = {}
for _, slug in ipairs(cjson.decode(slugs)) do
  if redis.call('HEXISTS', posts, slug) == 1 then table.insert(out, slug) end
end
return cjson.encode(out)`,
);

export const RECORD_SKIPPED = luaScript({ keys: ['posts'], args: ['slug'] }, `return redis.call('HSETNX', posts, slug, 'skipped')`);

export const START_SEND = luaScript(
  {
    keys: ['posts', 'send', 'queue', 'sends', 'active', 'subscribers', 'subscriberPrefix', 'rejections'],
    args: ['slug', 'mail', 'now', 'suspendAfter'],
  },
  `
if redis.call('HEXISTS', posts, slug) == 1 then return -1 end
local count = 0
for _, email in ipairs(redis.call('ZRANGE', subscribers, 0, -1)) do
  if redis.call('HGET', subscriberPrefix .. email, 'status') == 'confirmed' then
    local rejected = redis.call('HGET', rejections, email)
    if not rejected or cjson.decode(rejected).c < tonumber(suspendAfter) then
      redis.call('ZADD', queue, now, email)
      count = count + 1
    end
  end
end
redis.call('HSET', posts, slug, 'sending')
redis.call('HSET', send, 'mail', mail, 'started', now, 'recipients', count, 'sent', 0, 'failed', 0, 'skipped', 0)
redis.call('ZADD', sends, now, slug)
redis.call('ZADD', active, now, slug)
return count`,
);

export const ACTIVE_SENDS = luaScript({ keys: ['active'] }, `return redis.call('ZRANGE', active, 0, -1)`);

export const SEND_MAIL = luaScript({ keys: ['send'] }, `return redis.call('HGET', send, 'mail')`);

// A waiting message whose address is no longer confirmed: settled as skipped, with its attempts kept.
const SKIP = `
local function skip(queue, send, deliveries, claims, email)
  local entry = redis.call('HGET', deliveries, email)
  local attempts = entry and cjson.decode(entry).a or 0
  redis.call('ZREM', queue, email)
  redis.call('HDEL', claims, email)
  redis.call('HSET', deliveries, email, cjson.encode({ s = 'skipped', a = attempts }))
  redis.call('HINCRBY', send, 'skipped', 1)
end`;

// Whether a waiting message is held by this claim.
const HELD = `
local function held(queue, claims, email, claim)
  return redis.call('ZSCORE', queue, email) ~= false and redis.call('HGET', claims, email) == claim
end`;

export const CLAIM = luaScript(
  { keys: ['queue', 'send', 'deliveries', 'claims', 'subscriberPrefix', 'tokenPrefix'], args: ['now', 'leaseMs', 'tokenHashes', 'claim'] },
  SKIP,
  `
local hashes = cjson.decode(tokenHashes)
local due = redis.call('ZRANGEBYSCORE', queue, '-inf', now, 'LIMIT', 0, #hashes)
local out = {}
for _, email in ipairs(due) do
  local subscriber = redis.call('HMGET', subscriberPrefix .. email, 'status', 'name')
  if subscriber[1] ~= 'confirmed' then
    skip(queue, send, deliveries, claims, email)
  else
    local entry = redis.call('HGET', deliveries, email)
    local attempts = entry and cjson.decode(entry).a or 0
    local hash = hashes[#out + 1]
    redis.call('ZADD', queue, tonumber(now) + tonumber(leaseMs), email)
    redis.call('HSET', claims, email, claim)
    redis.call('SET', tokenPrefix .. hash, email)
    table.insert(out, { email, subscriber[2] or '', tostring(attempts), hash })
  end
end
return out`,
);

/** The addresses of `emails` the claim still holds, each leased again until `now + leaseMs`. */
export const RENEW = luaScript(
  { keys: ['queue', 'claims'], args: ['emails', 'claim', 'now', 'leaseMs'] },
  HELD,
  `
local out = {}
for _, email in ipairs(cjson.decode(emails)) do
  if held(queue, claims, email, claim) then
    redis.call('ZADD', queue, tonumber(now) + tonumber(leaseMs), email)
    table.insert(out, email)
  end
end
return out`,
);

export const STILL_WANTED = luaScript(
  { keys: ['queue', 'send', 'deliveries', 'claims', 'subscriber'], args: ['email', 'claim', 'now', 'leaseMs'] },
  SKIP,
  HELD,
  `
if not held(queue, claims, email, claim) then return 0 end
if redis.call('HGET', subscriber, 'status') == 'confirmed' then
  redis.call('ZADD', queue, tonumber(now) + tonumber(leaseMs), email)
  return 1
end
skip(queue, send, deliveries, claims, email)
return 0`,
);

/** Settles the messages (a JSON list of [email, claim]) their claim still holds; the addresses not settled. */
export const MARK_SENT = luaScript(
  { keys: ['queue', 'send', 'deliveries', 'claims'], args: ['messages'] },
  HELD,
  `
local count = 0
local lost = {}
for _, message in ipairs(cjson.decode(messages)) do
  local email = message[1]
  if held(queue, claims, email, message[2]) then
    redis.call('ZREM', queue, email)
    redis.call('HDEL', deliveries, email)
    redis.call('HDEL', claims, email)
    count = count + 1
  else
    table.insert(lost, email)
  end
end
if count > 0 then redis.call('HINCRBY', send, 'sent', count) end
return lost`,
);

export const RETRY_LATER = luaScript(
  { keys: ['queue', 'deliveries', 'claims'], args: ['email', 'claim', 'attempts', 'nextAttemptAt', 'lastError'] },
  HELD,
  `
if not held(queue, claims, email, claim) then return 0 end
redis.call('ZADD', queue, nextAttemptAt, email)
redis.call('HDEL', claims, email)
redis.call('HSET', deliveries, email, cjson.encode({ s = 'waiting', a = tonumber(attempts), e = lastError }))
return 1`,
);

/** Claims given back by a sender that is stopping: due at `now`, for the addresses the claim still holds. */
export const RELEASE = luaScript(
  { keys: ['queue', 'claims'], args: ['emails', 'claim', 'now'] },
  HELD,
  `
for _, email in ipairs(cjson.decode(emails)) do
  if held(queue, claims, email, claim) then
    redis.call('ZADD', queue, now, email)
    redis.call('HDEL', claims, email)
  end
end
return 1`,
);

export const MARK_FAILED = luaScript(
  { keys: ['queue', 'send', 'deliveries', 'claims', 'rejections'], args: ['email', 'claim', 'attempts', 'now', 'lastError', 'permanent'] },
  HELD,
  `
if held(queue, claims, email, claim) then
  redis.call('ZREM', queue, email)
  redis.call('HDEL', claims, email)
  redis.call('HSET', deliveries, email, cjson.encode({ s = 'failed', a = tonumber(attempts), e = lastError }))
  redis.call('HINCRBY', send, 'failed', 1)
  if permanent == '1' then
    local previous = redis.call('HGET', rejections, email)
    local count = previous and cjson.decode(previous).c or 0
    redis.call('HSET', rejections, email, cjson.encode({ c = count + 1, e = lastError, t = tonumber(now) }))
  end
end
local current = redis.call('HGET', rejections, email)
return current and cjson.decode(current).c or 0`,
);

// A send's counts: recipients, sent, failed, skipped as kept, waiting as the queue holds them.
const SEND_COUNTS = `
local function sendCounts(slug, state, send, queue)
  local fields = redis.call('HMGET', send, 'started', 'finished', 'recipients', 'sent', 'failed', 'skipped')
  return { slug, state, fields[1] or '0', fields[2] or '', fields[3] or '0', fields[4] or '0', tostring(redis.call('ZCARD', queue)), fields[5] or '0', fields[6] or '0' }
end`;

export const FINISH = luaScript(
  { keys: ['posts', 'send', 'queue', 'active'], args: ['slug', 'now'] },
  SEND_COUNTS,
  `
if redis.call('HGET', posts, slug) ~= 'sending' or redis.call('ZCARD', queue) > 0 then return false end
redis.call('HSET', posts, slug, 'sent')
redis.call('HSET', send, 'finished', now)
redis.call('ZREM', active, slug)
return sendCounts(slug, 'sent', send, queue)`,
);

export const SENDS = luaScript(
  { keys: ['posts', 'sends', 'sendPrefix', 'queuePrefix'] },
  SEND_COUNTS,
  `
local out = {}
for _, slug in ipairs(redis.call('ZRANGE', sends, 0, -1)) do
  table.insert(out, sendCounts(slug, redis.call('HGET', posts, slug), sendPrefix .. slug, queuePrefix .. slug))
end
return out`,
);

export const REJECTIONS = luaScript({ keys: ['rejections'] }, `return redis.call('HGETALL', rejections)`);

export const RETRY_FAILED = luaScript(
  { keys: ['posts', 'send', 'queue', 'deliveries', 'active', 'rejections'], args: ['slug', 'now', 'suspendAfter'] },
  `
local count = 0
local entries = redis.call('HGETALL', deliveries)
for i = 1, #entries, 2 do
  local email = entries[i]
  local rejected = redis.call('HGET', rejections, email)
  if cjson.decode(entries[i + 1]).s == 'failed' and (not rejected or cjson.decode(rejected).c < tonumber(suspendAfter)) then
    redis.call('HDEL', deliveries, email)
    redis.call('ZADD', queue, now, email)
    count = count + 1
  end
end
if count > 0 then
  redis.call('HINCRBY', send, 'failed', -count)
  redis.call('HSET', posts, slug, 'sending')
  redis.call('HDEL', send, 'finished')
  redis.call('ZADD', active, redis.call('HGET', send, 'started'), slug)
end
return count`,
);
