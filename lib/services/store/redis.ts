import { randomUUID } from 'node:crypto';
import { hashToken } from '../tokens';
import type { Booking, ConfirmationState, Order, OutboxEntry, OutgoingMail, Store, Subscriber, SubscriberStatus, SupportMessage } from './types';

/**
 * The store on Redis, for deployments without a disk or with several
 * instances. Every operation is one Lua script, so each is atomic and the
 * store needs nothing of its client but `eval` (node-redis and Upstash alike).
 */
export type Evaluator = { eval: (script: string, keys: string[], args: string[]) => Promise<unknown> };

const P = 'lectern:store:';

// Applies a subscription only if the address is still in the state the caller saw (else 'retry').
// The unsubscribe token of the queued message is kept (hashed) with it.
const SUBSCRIBE = `
local key = KEYS[1]
local status = redis.call('HGET', key, 'status') or 'new'
if status ~= ARGV[6] then return 'retry' end
if status ~= 'confirmed' then
  local oldConfirm = redis.call('HGET', key, 'confirm')
  if oldConfirm then redis.call('DEL', KEYS[2] .. oldConfirm) end
  redis.call('HSET', key, 'email', ARGV[1], 'status', 'pending', 'confirm', ARGV[3], 'confirmAt', ARGV[5], 'updated', ARGV[5])
  if ARGV[2] ~= '' then redis.call('HSET', key, 'name', ARGV[2]) end
  redis.call('HSETNX', key, 'created', ARGV[5])
  redis.call('SET', KEYS[2] .. ARGV[3], ARGV[1])
  redis.call('ZADD', KEYS[4], 'NX', ARGV[5], ARGV[1])
end
if ARGV[7] ~= '' then
  redis.call('SET', KEYS[3] .. ARGV[4], ARGV[1])
  redis.call('HSET', KEYS[5] .. ARGV[8], 'mail', ARGV[7], 'attempts', 0, 'created', ARGV[5])
  redis.call('ZADD', KEYS[6], ARGV[5], ARGV[8])
end
return status`;

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

const CONFIRMATION_STATE = `${FIND_PENDING}
local key, issued = pendingByToken(KEYS[1], KEYS[2], ARGV[1])
if not key then return false end
if issued < tonumber(ARGV[2]) then return 'expired' end
return 'pending'`;

const CONFIRM = `${FIND_PENDING}
local key, issued = pendingByToken(KEYS[1], KEYS[2], ARGV[1])
if not key then return false end
if issued < tonumber(ARGV[3]) then return 'expired' end
redis.call('HSET', key, 'status', 'confirmed', 'confirmed', ARGV[2], 'updated', ARGV[2])
redis.call('HDEL', key, 'confirm', 'confirmAt')
redis.call('DEL', KEYS[1])
return redis.call('HGETALL', key)`;

const UNSUBSCRIBE = `
local email = redis.call('GET', KEYS[1])
if not email then return false end
local key = KEYS[2] .. email
local confirm = redis.call('HGET', key, 'confirm')
if confirm then redis.call('DEL', KEYS[3] .. confirm) end
redis.call('HSET', key, 'status', 'unsubscribed', 'updated', ARGV[1])
redis.call('HDEL', key, 'confirm', 'confirmAt')
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
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
return 1`;

// Sent mail older than ARGV[1], at most ARGV[2] at a time: KEYS[1] the sent set, KEYS[2] the mail prefix.
const PURGE_SENT = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('DEL', KEYS[2] .. id)
  redis.call('ZREM', KEYS[1], id)
end
return #ids`;

/**
 * Upgrades data written before tokens were hashed and sent mail was indexed:
 * one SCAN step per call (ARGV[1] the cursor). A subscriber's raw unsubscribe
 * token is handed back to be hashed by the caller; sent mail joins the sent set.
 */
const UPGRADE_SCAN = `
local step = redis.call('SCAN', ARGV[1], 'MATCH', KEYS[1] .. '*', 'COUNT', 500)
local raw = {}
for _, key in ipairs(step[2]) do
  if string.sub(key, 1, #KEYS[2]) == KEYS[2] then
    local unsub = redis.call('HGET', key, 'unsub')
    if unsub then table.insert(raw, unsub) end
  elseif string.sub(key, 1, #KEYS[3]) == KEYS[3] then
    local sent = redis.call('HGET', key, 'sent')
    if sent then redis.call('ZADD', KEYS[4], sent, string.sub(key, #KEYS[3] + 1)) end
  end
end
return { step[1], raw }`;

// Re-keys one raw unsubscribe token under its hash: KEYS[1] raw key, KEYS[2] hashed key, KEYS[3] subscriber prefix.
const UPGRADE_TOKEN = `
local email = redis.call('GET', KEYS[1])
if email then
  redis.call('SET', KEYS[2], email)
  redis.call('DEL', KEYS[1])
  redis.call('HDEL', KEYS[3] .. email, 'unsub')
end
return 1`;

const SCHEMA_VERSION = '2';

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

// KEYS: the session's hold set, the hold prefix, the session's booked counter, the client's hold set.
const HOLD = `${SUM_HOLDS}
${CLIENT_HOLDS}
local hold = KEYS[2] .. ARGV[1]
if tonumber(redis.call('HGET', hold, 'expires') or 0) > tonumber(ARGV[6]) then return { 'existing', redis.call('HGETALL', hold) } end
local booked = tonumber(redis.call('GET', KEYS[3]) or 0)
if booked + heldSeats(KEYS[1], KEYS[2], ARGV[6]) + tonumber(ARGV[4]) > tonumber(ARGV[5]) then return { 'session-full' } end
if clientSeats(KEYS[4], KEYS[2], ARGV[6]) + tonumber(ARGV[4]) > tonumber(ARGV[9]) then return { 'client-limit' } end
redis.call('HSET', hold, 'product', ARGV[2], 'session', ARGV[3], 'seats', ARGV[4], 'client', ARGV[8], 'expires', ARGV[7])
redis.call('ZADD', KEYS[1], ARGV[7], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[7], ARGV[1])
return { 'fresh' }`;

const TAKEN = `${SUM_HOLDS}
return tonumber(redis.call('GET', KEYS[3]) or 0) + heldSeats(KEYS[1], KEYS[2], ARGV[1])`;

const HELD_BY = `${CLIENT_HOLDS}
return clientSeats(KEYS[1], KEYS[2], ARGV[1])`;

// KEYS: the hold prefix, the prefix of the sessions' hold sets, the prefix of the clients' hold sets.
const RELEASE = `${RELEASE_HOLD}
releaseHold(KEYS[1], KEYS[2], KEYS[3], ARGV[1])
return 1`;

// The event key holds 'refusing' while a payment refused as full awaits its refund, then 'refunded'.
const RECORD_PAYMENT = `${QUEUE_MAILS}
${SUM_HOLDS}
${RELEASE_HOLD}
local seen = redis.call('GET', KEYS[1])
if seen then
  if seen == 'refusing' then return 'full' end
  return 'duplicate'
end
local order = cjson.decode(ARGV[2])
local booking = ARGV[3] ~= '' and cjson.decode(ARGV[3]) or nil
if booking and ARGV[1] ~= '' then
  local session = booking.product .. ':' .. booking.session
  local held = heldSeats(KEYS[7] .. session, KEYS[6], order.createdAt)
  if ARGV[4] ~= '' and redis.call('ZSCORE', KEYS[7] .. session, ARGV[4]) then held = held - tonumber(redis.call('HGET', KEYS[6] .. ARGV[4], 'seats') or 0) end
  if tonumber(redis.call('GET', KEYS[5] .. session) or 0) + held + booking.seats > tonumber(ARGV[1]) then
    redis.call('SET', KEYS[1], 'refusing')
    return 'full'
  end
end
redis.call('SET', KEYS[1], 'recorded')
redis.call('HSET', KEYS[2], 'json', ARGV[2])
redis.call('ZADD', KEYS[3], order.createdAt, order.id)
if booking then
  redis.call('HSET', KEYS[4] .. booking.id, 'json', ARGV[3], 'status', 'confirmed')
  redis.call('INCRBY', KEYS[5] .. booking.product .. ':' .. booking.session, booking.seats)
end
if ARGV[4] ~= '' then releaseHold(KEYS[6], KEYS[7], KEYS[10], ARGV[4]) end
queueMails(KEYS[8], KEYS[9], 5, order.createdAt)
return 'recorded'`;

const RECORD_REFUND = `${QUEUE_MAILS}
if redis.call('GET', KEYS[1]) ~= 'refusing' then return 'duplicate' end
redis.call('SET', KEYS[1], 'refunded')
queueMails(KEYS[2], KEYS[3], 2, ARGV[1])
return 'recorded'`;

const BEGIN_CANCELLATION = `
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'confirmed' then redis.call('HSET', KEYS[1], 'status', 'cancelling') elseif status ~= 'cancelling' then return false end
return redis.call('HGETALL', KEYS[1])`;

// Seats stay counted until the booking is cancelled, so a cancellation waiting for its refund still takes them.
const CANCEL_BOOKING = `${QUEUE_MAILS}
if redis.call('HGET', KEYS[1], 'status') ~= 'cancelling' then return false end
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
    createdAt: Number(hash.created),
    ...(hash.confirmed ? { confirmedAt: Number(hash.confirmed) } : {}),
  };
}

export function openRedisStore(redis: Evaluator, close: () => Promise<void>): Store {
  const run = (script: string, keys: string[], args: (string | number)[]) => redis.eval(script, keys.map((key) => `${P}${key}`), args.map(String));

  /** The one-time upgrade of older data (idempotent, safe to run from several instances at once), once per process. */
  async function upgrade(): Promise<void> {
    if ((await redis.eval(`return redis.call('GET', KEYS[1])`, [`${P}schema`], [])) === SCHEMA_VERSION) return;
    let cursor = '0';
    do {
      const [next, raw] = (await run(UPGRADE_SCAN, ['', 'subscriber:', 'mail:', 'sent'], [cursor])) as [string, string[]];
      for (const token of raw) await run(UPGRADE_TOKEN, [`unsubscribe-token:${token}`, `unsubscribe-token:${hashToken(token)}`, 'subscriber:'], []);
      cursor = String(next);
    } while (cursor !== '0');
    await redis.eval(`return redis.call('SET', KEYS[1], ARGV[1])`, [`${P}schema`], [SCHEMA_VERSION]);
  }
  let upgrading: Promise<void> | undefined;
  const upgraded = () =>
    (upgrading ??= upgrade().catch((error: unknown) => {
      upgrading = undefined;
      throw error;
    }));

  return {
    kind: 'redis',

    async subscribe({ email, name, confirmTokenHash, unsubscribeTokenHash, now, mail }) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const existing = pairs(await run(HGETALL, [`subscriber:${email}`], []));
        const status = (existing.status as SubscriberStatus | undefined) ?? undefined;
        const message = mail(status);
        const result = await run(SUBSCRIBE, [`subscriber:${email}`, 'confirm-token:', 'unsubscribe-token:', 'subscribers', 'mail:', 'outbox'], [
          email,
          name ?? '',
          confirmTokenHash,
          unsubscribeTokenHash,
          now,
          status ?? 'new',
          message ? JSON.stringify(message) : '',
          randomUUID(),
        ]);
        if (result !== 'retry') return;
      }
      throw new Error('subscription kept changing under concurrent requests');
    },

    async confirmationState(confirmTokenHash, issuedAfter) {
      const result = await run(CONFIRMATION_STATE, [`confirm-token:${confirmTokenHash}`, 'subscriber:'], [confirmTokenHash, issuedAfter]);
      return typeof result === 'string' ? (result as ConfirmationState) : undefined;
    },

    async confirmSubscriber(confirmTokenHash, now, issuedAfter) {
      const result = await run(CONFIRM, [`confirm-token:${confirmTokenHash}`, 'subscriber:'], [confirmTokenHash, now, issuedAfter]);
      if (result === 'expired') return { state: 'expired' };
      return result ? { state: 'confirmed', subscriber: toSubscriber(pairs(result)) } : undefined;
    },

    async unsubscribe(unsubscribeTokenHash, now) {
      await upgraded();
      const result = await run(UNSUBSCRIBE, [`unsubscribe-token:${unsubscribeTokenHash}`, 'subscriber:', 'confirm-token:'], [now]);
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
      await run(SENT, ['outbox', `mail:${id}`, 'sent'], [id, now]);
    },

    async retryMailLater(id, attempts, nextAttemptAt, error) {
      await run(RETRY, ['outbox', `mail:${id}`], [id, nextAttemptAt, attempts, error.slice(0, 500)]);
    },

    async pendingMailCount() {
      return Number(await redis.eval(`return redis.call('ZCARD', KEYS[1])`, [`${P}outbox`], []));
    },

    async purgeSentMail(sentBefore) {
      await upgraded();
      let purged = 0;
      for (;;) {
        const count = Number(await run(PURGE_SENT, ['sent', 'mail:'], [sentBefore, 500]));
        purged += count;
        if (count < 500) return purged;
      }
    },

    async holdSeats(hold, { capacity, perClient }, now) {
      const [outcome, stored] = (await run(HOLD, [`holds:${hold.product}:${hold.session}`, 'hold:', `booked:${hold.product}:${hold.session}`, `client-holds:${hold.client}`], [
        hold.id,
        hold.product,
        hold.session,
        hold.seats,
        capacity,
        now,
        hold.expiresAt,
        hold.client,
        perClient,
      ])) as [string, unknown?];
      if (outcome === 'session-full' || outcome === 'client-limit') return { refused: outcome };
      if (outcome === 'fresh') return { held: hold, fresh: true };
      const fields = pairs(stored);
      return {
        held: { id: hold.id, client: fields.client ?? '', product: fields.product ?? '', session: fields.session ?? '', seats: Number(fields.seats), expiresAt: Number(fields.expires) },
        fresh: false,
      };
    },

    async releaseHold(id) {
      await run(RELEASE, ['hold:', 'holds:', 'client-holds:'], [id]);
    },

    async seatsTaken(product, session, now) {
      return Number(await run(TAKEN, [`holds:${product}:${session}`, 'hold:', `booked:${product}:${session}`], [now]));
    },

    async seatsHeldBy(client, now) {
      return Number(await run(HELD_BY, [`client-holds:${client}`, 'hold:'], [now]));
    },

    async recordPayment({ eventId, order, booking, capacity, holdId, mails }) {
      const result = await run(
        RECORD_PAYMENT,
        [`event:${eventId}`, `order:${order.id}`, 'orders', 'booking:', 'booked:', 'hold:', 'holds:', 'mail:', 'outbox', 'client-holds:'],
        [capacity ?? '', JSON.stringify(order), booking ? JSON.stringify({ ...booking, status: 'confirmed' }) : '', holdId ?? '', JSON.stringify(mails), ...mails.map(() => randomUUID())],
      );
      return result === 'duplicate' || result === 'full' ? result : 'recorded';
    },

    async recordRefund({ eventId, now, mails }) {
      const result = await run(RECORD_REFUND, [`event:${eventId}`, 'mail:', 'outbox'], [now, JSON.stringify(mails), ...mails.map(() => randomUUID())]);
      return result === 'recorded' ? 'recorded' : 'duplicate';
    },

    async orders() {
      const rows = (await run(LIST_JSON, ['orders', 'order:'], [])) as string[];
      return rows.map((row) => JSON.parse(row) as Order);
    },

    async booking(id) {
      return toStoredBooking(pairs(await run(HGETALL, [`booking:${id}`], [])));
    },

    async beginCancellation(id) {
      const result = await run(BEGIN_CANCELLATION, [`booking:${id}`], []);
      return result ? toStoredBooking(pairs(result)) : undefined;
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
