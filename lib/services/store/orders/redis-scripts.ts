import { luaScript } from '../../../redis/lua';
import { QUEUE_MAILS } from '../outbox/redis-scripts';

/** `count` is '1' for a download that counts; the count goes when the link stops working (`expires`). */
export const USE_LINK = luaScript(
  { keys: ['orderEntry', 'linkCount'], args: ['limit', 'count', 'expires'] },
  `
local json = redis.call('HGET', orderEntry, 'json')
if not json then return { 'unknown' } end
if redis.call('HEXISTS', orderEntry, 'refunded') == 1 then return { 'refunded' } end
local used = tonumber(redis.call('GET', linkCount) or 0)
if count == '1' then
  if used >= tonumber(limit) then return { 'used-up' } end
  redis.call('INCR', linkCount)
  redis.call('PEXPIREAT', linkCount, expires)
elseif used > tonumber(limit) then
  return { 'used-up' }
end
return { 'ok', json }`,
);

export const PAID_ORDER = luaScript(
  { keys: ['orderEntry'] },
  `
if redis.call('HEXISTS', orderEntry, 'refunded') == 1 then return false end
return redis.call('HGET', orderEntry, 'json')`,
);

export const REFUND_ORDER = luaScript(
  { keys: ['orderIntent', 'orderPrefix'], args: ['now'] },
  `
local id = redis.call('GET', orderIntent)
if not id then return false end
redis.call('HSETNX', orderPrefix .. id, 'refunded', now)
return id`,
);

export const PAID_BY = luaScript(
  { keys: ['ordersOf', 'orderPrefix'] },
  `
local found = {}
for _, id in ipairs(redis.call('ZRANGE', ordersOf, 0, -1)) do
  if redis.call('HEXISTS', orderPrefix .. id, 'refunded') == 0 then
    local json = redis.call('HGET', orderPrefix .. id, 'json')
    if json then table.insert(found, json) end
  end
end
return found`,
);

export const CLAIM_RESEND = luaScript(
  { keys: ['resend', 'mailPrefix', 'outbox'], args: ['now', 'cooldownMs', 'mails', 'mailIds'] },
  QUEUE_MAILS,
  `
local last = redis.call('GET', resend)
if last and tonumber(now) - tonumber(last) < tonumber(cooldownMs) then return 0 end
redis.call('SET', resend, now, 'PX', cooldownMs)
queueMails(mailPrefix, outbox, mails, mailIds, now)
return 1`,
);
