import { luaScript } from '../../../redis/lua';

/** Bounce tokens: `bounce-token:<hash>` holds the address and the send or mail (JSON). */
export const ISSUE = luaScript(
  { keys: ['tokenPrefix'], args: ['targets', 'ttlMs'] },
  `
for _, target in ipairs(cjson.decode(targets)) do
  redis.call('SET', tokenPrefix .. target.h, cjson.encode({ e = target.e, s = target.s, m = target.m }), 'NX', 'PX', tonumber(ttlMs))
end
return 1`,
);

/**
 * One report, recorded once (`reports`, a set of report ids) and acted on: see BounceStore.record.
 * Suspension is the newsletter's: the address's rejections raised to `suspendAfter`.
 * Answers { matched (0/1), email, slug, action }.
 */
export const RECORD = luaScript(
  {
    keys: ['token', 'reports', 'softPrefix', 'rejections', 'subscriberPrefix', 'confirmTokenPrefix', 'counts', 'last', 'mailPrefix'],
    args: ['reportId', 'kind', 'detail', 'now', 'softLimit', 'softWindowMs', 'suspendAfter'],
  },
  `
local raw = redis.call('GET', token)
if not raw then return { 0 } end
local target = cjson.decode(raw)
local email = target.e
local slug = target.s
if type(slug) ~= 'string' then slug = '' end
local function answer(action) return { 1, email, slug, action } end
if redis.call('SADD', reports, reportId) == 0 then return answer('duplicate') end
if slug ~= '' then redis.call('HINCRBY', counts, slug .. '\\n' .. kind, 1) end
redis.call('HSET', last, email, cjson.encode({ k = kind, d = detail, t = tonumber(now) }))
local function suspend(reason)
  local previous = redis.call('HGET', rejections, email)
  local count = tonumber(suspendAfter)
  if previous then count = math.max(count, cjson.decode(previous).c) end
  redis.call('HSET', rejections, email, cjson.encode({ c = count, e = reason, t = tonumber(now) }))
end
if kind == 'complaint' then
  local key = subscriberPrefix .. email
  if redis.call('EXISTS', key) == 1 then
    local confirm = redis.call('HGET', key, 'confirm')
    if confirm then redis.call('DEL', confirmTokenPrefix .. confirm) end
    redis.call('HSET', key, 'status', 'unsubscribed', 'updated', now)
    redis.call('HDEL', key, 'confirm', 'confirmAt')
  end
  return answer('unsubscribed')
end
if kind == 'hard' then
  suspend('hard bounce: ' .. detail)
  local mail = target.m
  if type(mail) == 'string' and redis.call('EXISTS', mailPrefix .. mail) == 1 then
    redis.call('HSET', mailPrefix .. mail, 'failed', now, 'error', 'hard bounce: ' .. detail)
  end
  return answer('suspended')
end
local soft = softPrefix .. email
redis.call('ZREMRANGEBYSCORE', soft, '-inf', tonumber(now) - tonumber(softWindowMs))
redis.call('ZADD', soft, now, reportId)
redis.call('PEXPIRE', soft, softWindowMs)
local n = redis.call('ZCARD', soft)
if n < tonumber(softLimit) then return answer('counted') end
suspend(n .. ' soft bounces: ' .. detail)
return answer('suspended')`,
);

export const SEND_COUNTS = luaScript({ keys: ['counts'] }, `return redis.call('HGETALL', counts)`);
export const LAST_BY_ADDRESS = luaScript({ keys: ['last'] }, `return redis.call('HGETALL', last)`);
