import type { ScriptRunner } from '../../../redis/lua';
import { mailArgs } from '../outbox/redis';
import { hashFields } from '../redis-hash';
import {
  BEGIN_CANCELLATION,
  BOOKING,
  CANCEL_BOOKING,
  DUE_REMINDERS,
  HOLD_SEATS,
  MOVE_BOOKING,
  RECORD_PAYMENT,
  RECORD_REFUND,
  RECORD_REMINDER,
  RELEASE,
  SEATS_HELD_BY,
  SEATS_TAKEN,
} from './redis-scripts';
import type { Booking, BookingStore } from './types';

/** A booking as kept: its JSON as booked, and beside it what changes (status, cancellation, session, sequence, reminder). */
function toStoredBooking(hash: Record<string, string>): Booking | undefined {
  if (!hash.json) return undefined;
  const booking = JSON.parse(hash.json) as Booking;
  // The reminder kept beside the JSON is the one in force (a move sets it anew).
  delete booking.remindAt;
  return {
    ...booking,
    status: (hash.status ?? booking.status) as Booking['status'],
    ...(hash.cancelled ? { cancelledAt: Number(hash.cancelled) } : {}),
    ...(hash.session ? { session: hash.session } : {}),
    ...(Number(hash.sequence ?? 0) > 0 ? { sequence: Number(hash.sequence) } : {}),
    ...(hash.remind ? { remindAt: Number(hash.remind) } : {}),
    ...(hash.reminded ? { remindedAt: Number(hash.reminded) } : {}),
    // A booking recorded before its deadline was kept in its JSON has it beside, from its first move.
    ...(booking.cancelUntil === undefined && hash.cancelUntil ? { cancelUntil: Number(hash.cancelUntil) } : {}),
  };
}

/** Bookings whose reminder is not queued yet, by when it is due. */
const REMINDERS = 'reminders';

const HOLD_KEYS = { holdPrefix: 'hold:', sessionHoldsPrefix: 'holds:', clientHoldsPrefix: 'client-holds:' };
const sessionKeys = (product: string, session: string) => ({
  sessionHolds: `holds:${product}:${session}`,
  holdPrefix: 'hold:',
  booked: `booked:${product}:${session}`,
});

export function redisBookings(run: ScriptRunner): BookingStore {
  return {
    async holdSeats(hold, { capacity, perClient }, now) {
      const [outcome, stored] = (await run(HOLD_SEATS, {
        keys: { ...sessionKeys(hold.product, hold.session), clientHolds: `client-holds:${hold.client}` },
        args: {
          id: hold.id,
          product: hold.product,
          session: hold.session,
          seats: hold.seats,
          capacity,
          now,
          expiresAt: hold.expiresAt,
          client: hold.client,
          perClient,
        },
      })) as [string, unknown?];
      if (outcome === 'session-full' || outcome === 'client-limit') return { refused: outcome };
      if (outcome === 'fresh') return { held: hold, fresh: true };
      const fields = hashFields(stored);
      return {
        held: {
          id: hold.id,
          client: fields.client ?? '',
          product: fields.product ?? '',
          session: fields.session ?? '',
          seats: Number(fields.seats),
          expiresAt: Number(fields.expires),
        },
        fresh: false,
      };
    },

    async releaseHold(id) {
      await run(RELEASE, { keys: HOLD_KEYS, args: { id } });
    },

    async seatsTaken(product, session, now) {
      return Number(await run(SEATS_TAKEN, { keys: sessionKeys(product, session), args: { now } }));
    },

    async seatsHeldBy(client, now) {
      return Number(await run(SEATS_HELD_BY, { keys: { clientHolds: `client-holds:${client}`, holdPrefix: 'hold:' }, args: { now } }));
    },

    async recordPayment({ eventId, order, booking, capacity, holdId, mails }) {
      const result = await run(RECORD_PAYMENT, {
        keys: {
          ...HOLD_KEYS,
          event: `event:${eventId}`,
          orderEntry: `order:${order.id}`,
          orders: 'orders',
          bookingPrefix: 'booking:',
          bookedPrefix: 'booked:',
          mailPrefix: 'mail:',
          outbox: 'outbox',
          orderIntentPrefix: 'order-intent:',
          ordersOfPrefix: 'orders-of:',
          reminders: REMINDERS,
        },
        args: {
          capacity: capacity ?? '',
          orderJson: JSON.stringify(order),
          bookingJson: booking ? JSON.stringify({ ...booking, status: 'confirmed' }) : '',
          holdId: holdId ?? '',
          remindAt: booking?.remindAt ?? '',
          ...mailArgs(mails),
        },
      });
      return result === 'duplicate' || result === 'full' ? result : 'recorded';
    },

    async recordRefund({ eventId, now, mails }) {
      const result = await run(RECORD_REFUND, {
        keys: { event: `event:${eventId}`, mailPrefix: 'mail:', outbox: 'outbox' },
        args: { now, ...mailArgs(mails) },
      });
      return result === 'recorded' ? 'recorded' : 'duplicate';
    },

    async find(id) {
      return toStoredBooking(hashFields(await run(BOOKING, { keys: { bookingEntry: `booking:${id}` } })));
    },

    async beginCancellation(id) {
      const result = await run(BEGIN_CANCELLATION, { keys: { bookingEntry: `booking:${id}` } });
      return result ? toStoredBooking(hashFields(result)) : undefined;
    },

    async cancel(id, now, mails) {
      const result = await run(CANCEL_BOOKING, {
        keys: { bookingEntry: `booking:${id}`, bookedPrefix: 'booked:', mailPrefix: 'mail:', outbox: 'outbox', reminders: REMINDERS },
        args: { now, ...mailArgs(mails) },
      });
      return result ? toStoredBooking(hashFields(result)) : undefined;
    },

    async move({ id, from, to, sequence, capacity, cancelUntil, remindAt, now, mails }) {
      const result = await run(MOVE_BOOKING, {
        keys: {
          bookingEntry: `booking:${id}`,
          bookedPrefix: 'booked:',
          sessionHoldsPrefix: 'holds:',
          holdPrefix: 'hold:',
          reminders: REMINDERS,
          mailPrefix: 'mail:',
          outbox: 'outbox',
        },
        args: { id, from, to, sequence, capacity, cancelUntil, remindAt: remindAt ?? '', now, ...mailArgs(mails) },
      });
      return result === 'moved' || result === 'full' ? result : 'changed';
    },

    async dueReminders(now, limit) {
      const rows = (await run(DUE_REMINDERS, { keys: { reminders: REMINDERS, bookingPrefix: 'booking:' }, args: { now, limit } })) as unknown[];
      return rows.map((row) => toStoredBooking(hashFields(row))).filter((booking): booking is Booking => booking !== undefined);
    },

    async recordReminder({ id, remindAt, now, mails }) {
      const result = await run(RECORD_REMINDER, {
        keys: { bookingEntry: `booking:${id}`, reminders: REMINDERS, mailPrefix: 'mail:', outbox: 'outbox' },
        args: { id, remindAt, now, ...mailArgs(mails) },
      });
      return Number(result) === 1;
    },
  };
}
