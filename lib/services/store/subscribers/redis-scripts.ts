import { luaScript } from '../../../redis/lua';
import { QUEUE_MAILS } from '../outbox/redis-scripts';

/**
 * A subscription, unless the address is confirmed or was mailed a confirmation
 * too recently or too often (then nothing changes): a fresh confirmation token,
 * and the mail queued with the (hashed) unsubscribe token it carries. 1 when a
 * mail was queued, else 0.
 */
export const SUBSCRIBE = luaScript(
  {
    keys: ['subscriber', 'confirmTokenPrefix', 'unsubscribeTokenPrefix', 'subscribers', 'mailPrefix', 'outbox'],
    args: ['email', 'name', 'confirmHash', 'unsubscribeHash', 'now', 'afterMs', 'atMost', 'perMs', 'mails', 'mailIds'],
  },
  QUEUE_MAILS,
  `
if redis.call('HGET', subscriber, 'status') == 'confirmed' then return 0 end
local time = tonumber(now)
local since = tonumber(redis.call('HGET', subscriber, 'mailsSince') or '')
local sent = tonumber(redis.call('HGET', subscriber, 'mailsSent') or '0')
if not since or time - since >= tonumber(perMs) then since = time; sent = 0 end
local mailedAt = tonumber(redis.call('HGET', subscriber, 'mailedAt') or '')
if (mailedAt and time - mailedAt < tonumber(afterMs)) or sent >= tonumber(atMost) then return 0 end
local oldConfirm = redis.call('HGET', subscriber, 'confirm')
if oldConfirm then redis.call('DEL', confirmTokenPrefix .. oldConfirm) end
redis.call('HSET', subscriber, 'email', email, 'status', 'pending', 'confirm', confirmHash, 'confirmAt', now, 'updated', now)
redis.call('HSET', subscriber, 'mailedAt', now, 'mailsSent', sent + 1, 'mailsSince', since)
if name ~= '' then redis.call('HSET', subscriber, 'name', name) end
redis.call('HSETNX', subscriber, 'created', now)
redis.call('SET', confirmTokenPrefix .. confirmHash, email)
redis.call('ZADD', subscribers, 'NX', now, email)
redis.call('SET', unsubscribeTokenPrefix .. unsubscribeHash, email)
queueMails(mailPrefix, outbox, mails, mailIds, now)
return 1`,
);

// The pending subscriber holding a confirmation token, and when the token was issued
// (hashes written before tokens were dated fall back to their last update).
const FIND_PENDING = `
local function pendingByToken(tokenKey, prefix, hash)
  local email = redis.call('GET', tokenKey)
  if not email then return nil end
  local key = prefix .. email
  if redis.call('HGET', key, 'status') ~= 'pending' or redis.call('HGET', key, 'confirm') ~= hash then return nil end
  return key, tonumber(redis.call('HGET', key, 'confirmAt') or redis.call('HGET', key, 'updated') or 0)
end`;

export const CONFIRMATION_STATE = luaScript(
  { keys: ['confirmToken', 'subscriberPrefix'], args: ['confirmHash', 'issuedAfter'] },
  FIND_PENDING,
  `
local key, issued = pendingByToken(confirmToken, subscriberPrefix, confirmHash)
if not key then return false end
if issued < tonumber(issuedAfter) then return 'expired' end
return 'pending'`,
);

export const CONFIRM = luaScript(
  { keys: ['confirmToken', 'subscriberPrefix'], args: ['confirmHash', 'now', 'issuedAfter'] },
  FIND_PENDING,
  `
local key, issued = pendingByToken(confirmToken, subscriberPrefix, confirmHash)
if not key then return false end
if issued < tonumber(issuedAfter) then return 'expired' end
redis.call('HSET', key, 'status', 'confirmed', 'confirmed', now, 'updated', now)
redis.call('HDEL', key, 'confirm', 'confirmAt')
redis.call('DEL', confirmToken)
return redis.call('HGETALL', key)`,
);

/** The welcome mail to a confirmed address, with the (hashed) unsubscribe token it carries; 1 when queued, 0 for an address not confirmed. */
export const WELCOME = luaScript(
  { keys: ['subscriber', 'unsubscribeTokenPrefix', 'mailPrefix', 'outbox'], args: ['email', 'unsubscribeHash', 'now', 'mails', 'mailIds'] },
  QUEUE_MAILS,
  `
if redis.call('HGET', subscriber, 'status') ~= 'confirmed' then return 0 end
redis.call('SET', unsubscribeTokenPrefix .. unsubscribeHash, email)
queueMails(mailPrefix, outbox, mails, mailIds, now)
return 1`,
);

export const UNSUBSCRIBE = luaScript(
  { keys: ['unsubscribeToken', 'subscriberPrefix', 'confirmTokenPrefix'], args: ['now'] },
  `
local email = redis.call('GET', unsubscribeToken)
if not email then return false end
local key = subscriberPrefix .. email
local confirm = redis.call('HGET', key, 'confirm')
if confirm then redis.call('DEL', confirmTokenPrefix .. confirm) end
redis.call('HSET', key, 'status', 'unsubscribed', 'updated', now)
redis.call('HDEL', key, 'confirm', 'confirmAt')
return redis.call('HGETALL', key)`,
);

export const LIST_SUBSCRIBERS = luaScript(
  { keys: ['subscribers', 'subscriberPrefix'] },
  `
local out = {}
for _, email in ipairs(redis.call('ZRANGE', subscribers, 0, -1)) do table.insert(out, redis.call('HGETALL', subscriberPrefix .. email)) end
return out`,
);
