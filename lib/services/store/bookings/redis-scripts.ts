import { luaScript } from '../../../redis/lua';
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
      'reminders',
    ],
    args: ['capacity', 'orderJson', 'bookingJson', 'holdId', 'remindAt', 'mails', 'mailIds'],
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
  if remindAt ~= '' then
    redis.call('HSET', bookingPrefix .. booking.id, 'remind', remindAt)
    redis.call('ZADD', reminders, remindAt, booking.id)
  end
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

// A booking's session: the one it moved to last, else the one it was booked in.
const SESSION_OF = `
local function sessionOf(entry, booking)
  return redis.call('HGET', entry, 'session') or booking.session
end`;

// Seats stay counted until the booking is cancelled, so a cancellation waiting for its refund still takes them.
export const CANCEL_BOOKING = luaScript(
  { keys: ['bookingEntry', 'bookedPrefix', 'mailPrefix', 'outbox', 'reminders'], args: ['now', 'mails', 'mailIds'] },
  QUEUE_MAILS,
  SESSION_OF,
  `
if redis.call('HGET', bookingEntry, 'status') ~= 'cancelling' then return false end
redis.call('HSET', bookingEntry, 'status', 'cancelled', 'cancelled', now)
local booking = cjson.decode(redis.call('HGET', bookingEntry, 'json'))
redis.call('DECRBY', bookedPrefix .. booking.product .. ':' .. sessionOf(bookingEntry, booking), booking.seats)
redis.call('ZREM', reminders, booking.id)
queueMails(mailPrefix, outbox, mails, mailIds, now)
return redis.call('HGETALL', bookingEntry)`,
);

// The session, sequence and reminder of a booking live beside its JSON, which keeps what it was booked with.
export const MOVE_BOOKING = luaScript(
  {
    keys: ['bookingEntry', 'bookedPrefix', 'sessionHoldsPrefix', 'holdPrefix', 'reminders', 'mailPrefix', 'outbox'],
    args: ['id', 'from', 'to', 'sequence', 'capacity', 'cancelUntil', 'remindAt', 'now', 'mails', 'mailIds'],
  },
  QUEUE_MAILS,
  SUM_HOLDS,
  SESSION_OF,
  `
if redis.call('HGET', bookingEntry, 'status') ~= 'confirmed' then return 'changed' end
local booking = cjson.decode(redis.call('HGET', bookingEntry, 'json'))
local current = tonumber(redis.call('HGET', bookingEntry, 'sequence') or 0)
if sessionOf(bookingEntry, booking) ~= from or current ~= tonumber(sequence) then return 'changed' end
local target = booking.product .. ':' .. to
if tonumber(redis.call('GET', bookedPrefix .. target) or 0) + heldSeats(sessionHoldsPrefix .. target, holdPrefix, now) + booking.seats > tonumber(capacity) then
  return 'full'
end
redis.call('DECRBY', bookedPrefix .. booking.product .. ':' .. from, booking.seats)
redis.call('INCRBY', bookedPrefix .. target, booking.seats)
redis.call('HSET', bookingEntry, 'session', to, 'sequence', current + 1)
if booking.cancelUntil == nil then redis.call('HSETNX', bookingEntry, 'cancelUntil', cancelUntil) end
redis.call('HDEL', bookingEntry, 'reminded', 'remind')
if remindAt ~= '' then
  redis.call('HSET', bookingEntry, 'remind', remindAt)
  redis.call('ZADD', reminders, remindAt, id)
else
  redis.call('ZREM', reminders, id)
end
queueMails(mailPrefix, outbox, mails, mailIds, now)
return 'moved'`,
);

// Bookings whose reminder is due: each booking's hash, soonest first.
export const DUE_REMINDERS = luaScript(
  { keys: ['reminders', 'bookingPrefix'], args: ['now', 'limit'] },
  `
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', reminders, '-inf', now, 'LIMIT', 0, tonumber(limit))) do
  if redis.call('HGET', bookingPrefix .. id, 'status') == 'confirmed' then table.insert(out, redis.call('HGETALL', bookingPrefix .. id)) end
end
return out`,
);

// The reminder is queued once: its entry leaves the set in the same step.
export const RECORD_REMINDER = luaScript(
  { keys: ['bookingEntry', 'reminders', 'mailPrefix', 'outbox'], args: ['id', 'remindAt', 'now', 'mails', 'mailIds'] },
  QUEUE_MAILS,
  `
local score = redis.call('ZSCORE', reminders, id)
if not score or tonumber(score) ~= tonumber(remindAt) or redis.call('HGET', bookingEntry, 'status') ~= 'confirmed' then return 0 end
redis.call('ZREM', reminders, id)
redis.call('HSET', bookingEntry, 'reminded', now)
queueMails(mailPrefix, outbox, mails, mailIds, now)
return 1`,
);
