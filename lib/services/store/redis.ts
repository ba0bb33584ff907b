import { randomUUID } from 'node:crypto';
import type { Booking, Order, OutboxEntry, OutgoingMail, Store, Subscriber, SubscriberStatus, SupportMessage } from './types';

/**
 * The store on Redis, for deployments without a disk or with several
 * instances. Every operation is one Lua script, so each is atomic and the
 * store needs nothing of its client but `eval` (node-redis and Upstash alike).
 */
export type Evaluator = { eval: (script: string, keys: string[], args: string[]) => Promise<unknown> };

const P = 'lectern:store:';

// Applies a subscription only if the address is still in the state the caller saw (else 'retry').
const SUBSCRIBE = `
local key = KEYS[1]
local status = redis.call('HGET', key, 'status') or 'new'
if status ~= ARGV[6] then return 'retry' end
if status ~= 'confirmed' then
  local oldConfirm = redis.call('HGET', key, 'confirm')
  if oldConfirm then redis.call('DEL', KEYS[2] .. oldConfirm) end
  redis.call('HSET', key, 'email', ARGV[1], 'status', 'pending', 'confirm', ARGV[3], 'updated', ARGV[5])
  if ARGV[2] ~= '' then redis.call('HSET', key, 'name', ARGV[2]) end
  if redis.call('HSETNX', key, 'unsub', ARGV[4]) == 1 then redis.call('SET', KEYS[3] .. ARGV[4], ARGV[1]) end
  redis.call('HSETNX', key, 'created', ARGV[5])
  redis.call('SET', KEYS[2] .. ARGV[3], ARGV[1])
  redis.call('ZADD', KEYS[4], 'NX', ARGV[5], ARGV[1])
end
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[5] .. ARGV[8], 'mail', ARGV[7], 'attempts', 0, 'created', ARGV[5])
  redis.call('ZADD', KEYS[6], ARGV[5], ARGV[8])
end
return status`;

const CONFIRM = `
local email = redis.call('GET', KEYS[1])
if not email then return false end
local key = KEYS[2] .. email
if redis.call('HGET', key, 'status') ~= 'pending' or redis.call('HGET', key, 'confirm') ~= ARGV[1] then return false end
redis.call('HSET', key, 'status', 'confirmed', 'confirmed', ARGV[2], 'updated', ARGV[2])
redis.call('HDEL', key, 'confirm')
redis.call('DEL', KEYS[1])
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3] .. ARGV[4], 'mail', ARGV[3], 'attempts', 0, 'created', ARGV[2])
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[4])
end
return redis.call('HGETALL', key)`;

const READ_BY_TOKEN = `
local email = redis.call('GET', KEYS[1])
if not email then return false end
return redis.call('HGETALL', KEYS[2] .. email)`;

const UNSUBSCRIBE = `
local email = redis.call('GET', KEYS[1])
if not email then return false end
local key = KEYS[2] .. email
local confirm = redis.call('HGET', key, 'confirm')
if confirm then redis.call('DEL', KEYS[3] .. confirm) end
redis.call('HSET', key, 'status', 'unsubscribed', 'updated', ARGV[1])
redis.call('HDEL', key, 'confirm')
return redis.call('HGETALL', key)`;

const LIST_HASHES = `
local ids = redis.call('ZRANGE', KEYS[1], 0, -1)
local out = {}
for _, id in ipairs(ids) do table.insert(out, redis.call('HGETALL', KEYS[2] .. id)) end
return out`;

const HGETALL = `return redis.call('HGETALL', KEYS[1])`;

// Queues mails (a JSON list in ARGV[mailsArg]) under the ids that follow it in ARGV.
const QUEUE_MAILS = `
local function queueMails(prefix, outbox, mailsArg, now)
  for i, mail in ipairs(cjson.decode(ARGV[mailsArg])) do
    local id = ARGV[mailsArg + i]
    redis.call('HSET', prefix .. id, 'mail', cjson.encode(mail), 'attempts', 0, 'created', now)
    redis.call('ZADD', outbox, now, id)
  end
end`;

const SAVE_SUPPORT = `${QUEUE_MAILS}
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'email', ARGV[3], 'subject', ARGV[4], 'message', ARGV[5], 'created', ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1])
queueMails(KEYS[3], KEYS[4], 7, ARGV[6])
return 1`;

const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[3]), id)
  local entry = redis.call('HMGET', KEYS[2] .. id, 'mail', 'attempts')
  table.insert(out, { id, entry[1], entry[2] })
end
return out`;

const SENT = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'sent', ARGV[2])
return 1`;

const RETRY = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], 'attempts', ARGV[3], 'error', ARGV[4])
return 1`;

// Active holds of one training session, expired ones dropped on the way: KEYS[1] the session's hold set, KEYS[2] the hold prefix.
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

const HOLD = `${SUM_HOLDS}
local booked = tonumber(redis.call('GET', KEYS[3]) or 0)
if booked + heldSeats(KEYS[1], KEYS[2], ARGV[6]) + tonumber(ARGV[4]) > tonumber(ARGV[5]) then return 0 end
redis.call('HSET', KEYS[2] .. ARGV[1], 'product', ARGV[2], 'session', ARGV[3], 'seats', ARGV[4])
redis.call('ZADD', KEYS[1], ARGV[7], ARGV[1])
return 1`;

const TAKEN = `${SUM_HOLDS}
return tonumber(redis.call('GET', KEYS[3]) or 0) + heldSeats(KEYS[1], KEYS[2], ARGV[1])`;

// KEYS[1] hold prefix, KEYS[2] prefix of the sessions' hold sets.
const RELEASE = `
local hold = KEYS[1] .. ARGV[1]
local product = redis.call('HGET', hold, 'product')
if product then
  redis.call('ZREM', KEYS[2] .. product .. ':' .. redis.call('HGET', hold, 'session'), ARGV[1])
  redis.call('DEL', hold)
end
return 1`;

const RECORD_PAYMENT = `${QUEUE_MAILS}
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 'duplicate' end
local order = cjson.decode(ARGV[2])
redis.call('HSET', KEYS[2], 'json', ARGV[2])
redis.call('ZADD', KEYS[3], order.createdAt, order.id)
if ARGV[3] ~= '' then
  local booking = cjson.decode(ARGV[3])
  redis.call('HSET', KEYS[4] .. booking.id, 'json', ARGV[3], 'status', 'confirmed')
  redis.call('INCRBY', KEYS[5] .. booking.product .. ':' .. booking.session, booking.seats)
end
if ARGV[4] ~= '' then
  local hold = KEYS[6] .. ARGV[4]
  local product = redis.call('HGET', hold, 'product')
  if product then
    redis.call('ZREM', KEYS[7] .. product .. ':' .. redis.call('HGET', hold, 'session'), ARGV[4])
    redis.call('DEL', hold)
  end
end
queueMails(KEYS[8], KEYS[9], 5, order.createdAt)
return 'recorded'`;

const CANCEL_BOOKING = `${QUEUE_MAILS}
if redis.call('HGET', KEYS[1], 'status') ~= 'confirmed' then return false end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'cancelled', ARGV[1])
local booking = cjson.decode(redis.call('HGET', KEYS[1], 'json'))
redis.call('DECRBY', KEYS[2] .. booking.product .. ':' .. booking.session, booking.seats)
queueMails(KEYS[3], KEYS[4], 2, ARGV[1])
return redis.call('HGETALL', KEYS[1])`;

const LIST_JSON = `
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do table.insert(out, redis.call('HGET', KEYS[2] .. id, 'json')) end
return out`;

function toStoredBooking(hash: Record<string, string>): Booking | undefined {
  if (!hash.json) return undefined;
  const booking = JSON.parse(hash.json) as Booking;
  return { ...booking, status: (hash.status ?? booking.status) as Booking['status'], ...(hash.cancelled ? { cancelledAt: Number(hash.cancelled) } : {}) };
}

function pairs(flat: unknown): Record<string, string> {
  const list = Array.isArray(flat) ? (flat as string[]) : [];
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) record[String(list[i])] = String(list[i + 1]);
  return record;
}

function toSubscriber(hash: Record<string, string>): Subscriber {
  return {
    email: hash.email ?? '',
    ...(hash.name ? { name: hash.name } : {}),
    status: (hash.status ?? 'pending') as SubscriberStatus,
    unsubscribeToken: hash.unsub ?? '',
    createdAt: Number(hash.created),
    ...(hash.confirmed ? { confirmedAt: Number(hash.confirmed) } : {}),
  };
}

export function openRedisStore(redis: Evaluator, close: () => Promise<void>): Store {
  const run = (script: string, keys: string[], args: (string | number)[]) => redis.eval(script, keys.map((key) => `${P}${key}`), args.map(String));
  return {
    kind: 'redis',

    async subscribe({ email, name, confirmTokenHash, unsubscribeToken, now, mail }) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const existing = pairs(await run(HGETALL, [`subscriber:${email}`], []));
        const status = (existing.status as SubscriberStatus | undefined) ?? undefined;
        const message = mail(status, existing.unsub ?? unsubscribeToken);
        const result = await run(SUBSCRIBE, [`subscriber:${email}`, 'confirm-token:', 'unsubscribe-token:', 'subscribers', 'mail:', 'outbox'], [
          email,
          name ?? '',
          confirmTokenHash,
          unsubscribeToken,
          now,
          status ?? 'new',
          message ? JSON.stringify(message) : '',
          randomUUID(),
        ]);
        if (result !== 'retry') return;
      }
      throw new Error('subscription kept changing under concurrent requests');
    },

    async confirmSubscriber(confirmTokenHash, now, mail) {
      const found = pairs(await run(READ_BY_TOKEN, [`confirm-token:${confirmTokenHash}`, 'subscriber:'], []));
      if (!found.email || found.status !== 'pending') return undefined;
      const confirmed: Subscriber = { ...toSubscriber(found), status: 'confirmed', confirmedAt: now };
      const message = mail(confirmed);
      const result = await run(CONFIRM, [`confirm-token:${confirmTokenHash}`, 'subscriber:', 'mail:', 'outbox'], [confirmTokenHash, now, message ? JSON.stringify(message) : '', randomUUID()]);
      return result ? toSubscriber(pairs(result)) : undefined;
    },

    async unsubscribe(unsubscribeToken, now) {
      const result = await run(UNSUBSCRIBE, [`unsubscribe-token:${unsubscribeToken}`, 'subscriber:', 'confirm-token:'], [now]);
      return result ? toSubscriber(pairs(result)) : undefined;
    },

    async subscribers() {
      const rows = (await run(LIST_HASHES, ['subscribers', 'subscriber:'], [])) as unknown[];
      return rows.map((row) => toSubscriber(pairs(row)));
    },

    async subscriber(email) {
      const hash = pairs(await run(HGETALL, [`subscriber:${email}`], []));
      return hash.email ? toSubscriber(hash) : undefined;
    },

    async saveSupportMessage(message, mails) {
      await run(SAVE_SUPPORT, [`support:${message.id}`, 'support', 'mail:', 'outbox'], [
        message.id,
        message.name,
        message.email,
        message.subject,
        message.message,
        message.createdAt,
        JSON.stringify(mails),
        ...mails.map(() => randomUUID()),
      ]);
    },

    async supportMessages() {
      const rows = (await run(LIST_HASHES, ['support', 'support:'], [])) as unknown[];
      return rows.map((row): SupportMessage => {
        const hash = pairs(row);
        return { id: hash.id ?? '', name: hash.name ?? '', email: hash.email ?? '', subject: hash.subject ?? '', message: hash.message ?? '', createdAt: Number(hash.created) };
      });
    },

    async claimDueMail(now, limit, leaseMs) {
      const rows = (await run(CLAIM, ['outbox', 'mail:'], [now, limit, leaseMs])) as [string, string, string][];
      return rows.map(([id, mail, attempts]): OutboxEntry => ({ id, mail: JSON.parse(mail) as OutgoingMail, attempts: Number(attempts) }));
    },

    async markMailSent(id, now) {
      await run(SENT, ['outbox', `mail:${id}`], [id, now]);
    },

    async retryMailLater(id, attempts, nextAttemptAt, error) {
      await run(RETRY, ['outbox', `mail:${id}`], [id, nextAttemptAt, attempts, error.slice(0, 500)]);
    },

    async pendingMailCount() {
      return Number(await redis.eval(`return redis.call('ZCARD', KEYS[1])`, [`${P}outbox`], []));
    },

    async holdSeats(hold, capacity, now) {
      const result = await run(HOLD, [`holds:${hold.product}:${hold.session}`, 'hold:', `booked:${hold.product}:${hold.session}`], [
        hold.id,
        hold.product,
        hold.session,
        hold.seats,
        capacity,
        now,
        hold.expiresAt,
      ]);
      return Number(result) === 1;
    },

    async releaseHold(id) {
      await run(RELEASE, ['hold:', 'holds:'], [id]);
    },

    async seatsTaken(product, session, now) {
      return Number(await run(TAKEN, [`holds:${product}:${session}`, 'hold:', `booked:${product}:${session}`], [now]));
    },

    async recordPayment({ eventId, order, booking, holdId, mails }) {
      const result = await run(
        RECORD_PAYMENT,
        [`event:${eventId}`, `order:${order.id}`, 'orders', 'booking:', 'booked:', 'hold:', 'holds:', 'mail:', 'outbox'],
        [eventId, JSON.stringify(order), booking ? JSON.stringify({ ...booking, status: 'confirmed' }) : '', holdId ?? '', JSON.stringify(mails), ...mails.map(() => randomUUID())],
      );
      return result === 'duplicate' ? 'duplicate' : 'recorded';
    },

    async orders() {
      const rows = (await run(LIST_JSON, ['orders', 'order:'], [])) as string[];
      return rows.map((row) => JSON.parse(row) as Order);
    },

    async booking(id) {
      return toStoredBooking(pairs(await run(HGETALL, [`booking:${id}`], [])));
    },

    async cancelBooking(id, now, mails) {
      const result = await run(CANCEL_BOOKING, [`booking:${id}`, 'booked:', 'mail:', 'outbox'], [now, JSON.stringify(mails), ...mails.map(() => randomUUID())]);
      return result ? toStoredBooking(pairs(result)) : undefined;
    },

    async ping() {
      await redis.eval(`return redis.call('PING')`, [], []);
    },

    async setting(key) {
      const value = await redis.eval(`return redis.call('GET', KEYS[1])`, [`${P}setting:${key}`], []);
      return typeof value === 'string' ? value : undefined;
    },

    async setSetting(key, value) {
      await redis.eval(`return redis.call('SET', KEYS[1], ARGV[1])`, [`${P}setting:${key}`], [value]);
    },

    close,
  };
}
