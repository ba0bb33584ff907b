import { luaScript } from '../../redis/lua';

export const PING = luaScript({}, `return redis.call('PING')`);

export const SCHEMA_VERSION = luaScript({ keys: ['schema'] }, `return redis.call('GET', schema)`);

export const SET_SCHEMA_VERSION = luaScript({ keys: ['schema'], args: ['version'] }, `return redis.call('SET', schema, version)`);

/**
 * One SCAN step of the upgrade of data written before tokens were hashed and
 * sent mail was indexed. A subscriber's raw unsubscribe token is handed back
 * to be hashed by the caller; sent mail joins the sent set.
 */
export const UPGRADE_SCAN = luaScript(
  { keys: ['namespace', 'subscriberPrefix', 'mailPrefix', 'sent'], args: ['cursor'] },
  `
local step = redis.call('SCAN', cursor, 'MATCH', namespace .. '*', 'COUNT', 500)
local raw = {}
for _, key in ipairs(step[2]) do
  if string.sub(key, 1, #subscriberPrefix) == subscriberPrefix then
    local unsub = redis.call('HGET', key, 'unsub')
    if unsub then table.insert(raw, unsub) end
  elseif string.sub(key, 1, #mailPrefix) == mailPrefix then
    local sentAt = redis.call('HGET', key, 'sent')
    if sentAt then redis.call('ZADD', sent, sentAt, string.sub(key, #mailPrefix + 1)) end
  end
end
return { step[1], raw }`,
);

/** Re-keys one raw unsubscribe token under its hash. */
export const UPGRADE_TOKEN = luaScript(
  { keys: ['rawToken', 'hashedToken', 'subscriberPrefix'] },
  `
local email = redis.call('GET', rawToken)
if email then
  redis.call('SET', hashedToken, email)
  redis.call('DEL', rawToken)
  redis.call('HDEL', subscriberPrefix .. email, 'unsub')
end
return 1`,
);
