import { luaScript } from '../lua';
import { QUEUE_MAILS } from '../outbox/redis-scripts';

// Active holds of one training session, expired ones dropped on the way: the session's hold set, the hold prefix.
const SUM_HOLDS = `
local function heldSeats(holds, prefix, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', holds, '-inf', now)) do
    redis.call('ZREM', holds, id)
    redis.call('DEL', prefix .. id)
  end
  local held = 0
  for _, id in ipairs(redis.call('ZRANGE', holds, 0, -1)) do held = held + tonumber(redis.call('HGET', prefix .. id, 'seats') or 0) end
  return held
end`;

// Active holds of one client across sessions, expired ones dropped on the way: a client set, the hold prefix.
const CLIENT_HOLDS = `
local function clientSeats(holds, prefix, now)
  redis.call('ZREMRANGEBYSCORE', holds, '-inf', now)
  local held = 0
  for _, id in ipairs(redis.call('ZRANGE', holds, 0, -1)) do held = held + tonumber(redis.call('HGET', prefix .. id, 'seats') or 0) end
  return held
end`;

// Drops a hold from its session's set and its client's set: the hold prefix, the prefixes of the sessions' and the clients' hold sets.
const RELEASE_HOLD = `
local function releaseHold(prefix, sessions, clients, id)
  local hold = prefix .. id
  local product = redis.call('HGET', hold, 'product')
  if product then
    redis.call('ZREM', sessions .. product .. ':' .. redis.call('HGET', hold, 'session'), id)
    local client = redis.call('HGET', hold, 'client')
    if client then redis.call('ZREM', clients .. client, id) end
    redis.call('DEL', hold)
  end
end`;

export const HOLD_SEATS = luaScript(
  {
    keys: ['sessionHolds', 'holdPrefix', 'booked', 'clientHolds'],
    args: ['id', 'product', 'session', 'seats', 'capacity', 'now', 'expiresAt', 'client', 'perClient'],
  },
  SUM_HOLDS,
  CLIENT_HOLDS,
  `
local hold = holdPrefix .. id
if tonumber(redis.call('HGET', hold, 'expires') or 0) > tonumber(now) then return { 'existing', redis.call('HGETALL', hold) } end
local bookedSeats = tonumber(redis.call('GET', booked) or 0)
if bookedSeats + heldSeats(sessionHolds, holdPrefix, now) + tonumber(seats) > tonumber(capacity) then return { 'session-full' } end
if clientSeats(clientHolds, holdPrefix, now) + tonumber(seats) > tonumber(perClient) then return { 'client-limit' } end
redis.call('HSET', hold, 'product', product, 'session', session, 'seats', seats, 'client', client, 'expires', expiresAt)
redis.call('ZADD', sessionHolds, expiresAt, id)
redis.call('ZADD', clientHolds, expiresAt, id)
return { 'fresh' }`,
);

export const SEATS_TAKEN = luaScript(
  { keys: ['sessionHolds', 'holdPrefix', 'booked'], args: ['now'] },
  SUM_HOLDS,
  `return tonumber(redis.call('GET', booked) or 0) + heldSeats(sessionHolds, holdPrefix, now)`,
);

export const SEATS_HELD_BY = luaScript(
  { keys: ['clientHolds', 'holdPrefix'], args: ['now'] },
  CLIENT_HOLDS,
  `return clientSeats(clientHolds, holdPrefix, now)`,
);

export const RELEASE = luaScript(
  { keys: ['holdPrefix', 'sessionHoldsPrefix', 'clientHoldsPrefix'], args: ['id'] },
  RELEASE_HOLD,
  `
releaseHold(holdPrefix, sessionHoldsPrefix, clientHoldsPrefix, id)
return 1`,
);

/**
 * The event key holds 'refusing' while a payment refused as full awaits its
 * refund, then 'refunded'. `capacity` and `holdId` are '' when not given.
 */
export const RECORD_PAYMENT = luaScript(
  {
    keys: [
      'event',
      'orderEntry',
      'orders',
      'bookingPrefix',
      'bookedPrefix',
      'holdPrefix',
      'sessionHoldsPrefix',
      'mailPrefix',
      'outbox',
      'clientHoldsPrefix',
      'orderIntentPrefix',
      'ordersOfPrefix',
    ],
    args: ['capacity', 'orderJson', 'bookingJson', 'holdId', 'mails', 'mailIds'],
  },
  QUEUE_MAILS,
  SUM_HOLDS,
  RELEASE_HOLD,
  `
local seen = redis.call('GET', event)
if seen then
  if seen == 'refusing' then return 'full' end
  return 'duplicate'
end
local order = cjson.decode(orderJson)
local booking = bookingJson ~= '' and cjson.decode(bookingJson) or nil
if booking and capacity ~= '' then
  local session = booking.product .. ':' .. booking.session
  local held = heldSeats(sessionHoldsPrefix .. session, holdPrefix, order.createdAt)
  if holdId ~= '' and redis.call('ZSCORE', sessionHoldsPrefix .. session, holdId) then held = held - tonumber(redis.call('HGET', holdPrefix .. holdId, 'seats') or 0) end
  if tonumber(redis.call('GET', bookedPrefix .. session) or 0) + held + booking.seats > tonumber(capacity) then
    redis.call('SET', event, 'refusing')
    return 'full'
  end
end
redis.call('SET', event, 'recorded')
redis.call('HSET', orderEntry, 'json', orderJson)
redis.call('ZADD', orders, order.createdAt, order.id)
if type(order.paymentIntent) == 'string' and order.paymentIntent ~= '' then redis.call('SET', orderIntentPrefix .. order.paymentIntent, order.id) end
redis.call('ZADD', ordersOfPrefix .. string.lower(order.email), order.createdAt, order.id)
if booking then
  redis.call('HSET', bookingPrefix .. booking.id, 'json', bookingJson, 'status', 'confirmed')
  redis.call('INCRBY', bookedPrefix .. booking.product .. ':' .. booking.session, booking.seats)
end
if holdId ~= '' then releaseHold(holdPrefix, sessionHoldsPrefix, clientHoldsPrefix, holdId) end
queueMails(mailPrefix, outbox, mails, mailIds, order.createdAt)
return 'recorded'`,
);

export const RECORD_REFUND = luaScript(
  { keys: ['event', 'mailPrefix', 'outbox'], args: ['now', 'mails', 'mailIds'] },
  QUEUE_MAILS,
  `
if redis.call('GET', event) ~= 'refusing' then return 'duplicate' end
redis.call('SET', event, 'refunded')
queueMails(mailPrefix, outbox, mails, mailIds, now)
return 'recorded'`,
);

export const BOOKING = luaScript({ keys: ['bookingEntry'] }, `return redis.call('HGETALL', bookingEntry)`);

export const BEGIN_CANCELLATION = luaScript(
  { keys: ['bookingEntry'] },
  `
local status = redis.call('HGET', bookingEntry, 'status')
if status == 'confirmed' then redis.call('HSET', bookingEntry, 'status', 'cancelling') elseif status ~= 'cancelling' then return false end
return redis.call('HGETALL', bookingEntry)`,
);

// Seats stay counted until the booking is cancelled, so a cancellation waiting for its refund still takes them.
export const CANCEL_BOOKING = luaScript(
  { keys: ['bookingEntry', 'bookedPrefix', 'mailPrefix', 'outbox'], args: ['now', 'mails', 'mailIds'] },
  QUEUE_MAILS,
  `
if redis.call('HGET', bookingEntry, 'status') ~= 'cancelling' then return false end
redis.call('HSET', bookingEntry, 'status', 'cancelled', 'cancelled', now)
local booking = cjson.decode(redis.call('HGET', bookingEntry, 'json'))
redis.call('DECRBY', bookedPrefix .. booking.product .. ':' .. booking.session, booking.seats)
queueMails(mailPrefix, outbox, mails, mailIds, now)
return redis.call('HGETALL', bookingEntry)`,
);
