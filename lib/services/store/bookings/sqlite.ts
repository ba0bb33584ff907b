import type { Database } from '../sqlite-database';
import type { QueueMail } from '../outbox/sqlite';
import type { Booking, BookingStore, Hold, HoldOutcome, MoveOutcome } from './types';

type BookingRow = {
  id: string;
  token_hash: string;
  product: string;
  session: string;
  seats: number;
  email: string;
  name: string | null;
  payment_intent: string;
  amount: number;
  currency: string;
  status: Booking['status'];
  created_at: number;
  cancelled_at: number | null;
  sequence: number;
  remind_at: number | null;
  reminded_at: number | null;
  cancel_until: number | null;
};

function toBooking(row: BookingRow): Booking {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    product: row.product,
    session: row.session,
    seats: row.seats,
    email: row.email,
    ...(row.name ? { name: row.name } : {}),
    paymentIntent: row.payment_intent,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    createdAt: row.created_at,
    ...(row.cancelled_at ? { cancelledAt: row.cancelled_at } : {}),
    ...(row.sequence ? { sequence: row.sequence } : {}),
    ...(row.remind_at !== null ? { remindAt: row.remind_at } : {}),
    ...(row.reminded_at !== null ? { remindedAt: row.reminded_at } : {}),
    ...(row.cancel_until !== null ? { cancelUntil: row.cancel_until } : {}),
  };
}

type HoldRow = { id: string; client: string; product: string; session: string; seats: number; expires_at: number };
const toHold = (row: HoldRow): Hold => ({
  id: row.id,
  client: row.client,
  product: row.product,
  session: row.session,
  seats: row.seats,
  expiresAt: row.expires_at,
});

export function sqliteBookings(db: Database, queueMail: QueueMail): BookingStore {
  // Seats stay taken until a booking is cancelled, so a cancellation waiting for its refund still counts.
  const taken = (product: string, session: string, now: number, exceptHold = ''): number => {
    const booked = db
      .prepare<[string, string], { n: number | null }>(`SELECT SUM(seats) AS n FROM bookings WHERE product = ? AND session = ? AND status != 'cancelled'`)
      .get(product, session);
    const held = db
      .prepare<[string, string, number, string], { n: number | null }>(
        'SELECT SUM(seats) AS n FROM holds WHERE product = ? AND session = ? AND expires_at > ? AND id != ?',
      )
      .get(product, session, now, exceptHold);
    return (booked?.n ?? 0) + (held?.n ?? 0);
  };
  const heldBy = (client: string, now: number): number =>
    db.prepare<[string, number], { n: number | null }>('SELECT SUM(seats) AS n FROM holds WHERE client = ? AND expires_at > ?').get(client, now)?.n ?? 0;
  const selectBooking = db.prepare<[string], BookingRow>('SELECT * FROM bookings WHERE id = ?');
  const selectDue = db.prepare<[number, number], BookingRow>(
    `SELECT * FROM bookings WHERE remind_at IS NOT NULL AND reminded_at IS NULL AND remind_at <= ? AND status = 'confirmed' ORDER BY remind_at LIMIT ?`,
  );

  return {
    async holdSeats(hold, { capacity, perClient }, now) {
      return db.transaction((): HoldOutcome => {
        const existing = db.prepare<[string, number], HoldRow>('SELECT * FROM holds WHERE id = ? AND expires_at > ?').get(hold.id, now);
        if (existing) return { held: toHold(existing), fresh: false };
        if (taken(hold.product, hold.session, now, hold.id) + hold.seats > capacity) return { refused: 'session-full' };
        if (heldBy(hold.client, now) + hold.seats > perClient) return { refused: 'client-limit' };
        db.prepare('INSERT OR REPLACE INTO holds (id, client, product, session, seats, expires_at) VALUES (?, ?, ?, ?, ?, ?)').run(
          hold.id,
          hold.client,
          hold.product,
          hold.session,
          hold.seats,
          hold.expiresAt,
        );
        return { held: hold, fresh: true };
      })();
    },

    async releaseHold(id) {
      db.prepare('DELETE FROM holds WHERE id = ?').run(id);
    },

    async seatsTaken(product, session, now) {
      return taken(product, session, now);
    },

    async seatsHeldBy(client, now) {
      return heldBy(client, now);
    },

    async recordPayment({ eventId, order, booking, capacity, holdId, mails }) {
      return db.transaction(() => {
        const seen = db.prepare<[string], { outcome: string }>('SELECT outcome FROM webhook_events WHERE id = ?').get(eventId);
        if (seen) return seen.outcome === 'refusing' ? ('full' as const) : ('duplicate' as const);
        if (booking && capacity !== undefined && taken(booking.product, booking.session, order.createdAt, holdId) + booking.seats > capacity) {
          db.prepare(`INSERT INTO webhook_events (id, received_at, outcome) VALUES (?, ?, 'refusing')`).run(eventId, order.createdAt);
          return 'full' as const;
        }
        db.prepare('INSERT INTO webhook_events (id, received_at) VALUES (?, ?)').run(eventId, order.createdAt);
        db.prepare(
          'INSERT OR IGNORE INTO orders (id, product, kind, amount, currency, email, created_at, payment_intent, session, seats) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(
          order.id,
          order.product,
          order.kind,
          order.amount,
          order.currency,
          order.email,
          order.createdAt,
          order.paymentIntent || null,
          order.session ?? null,
          order.seats ?? null,
        );
        if (booking) {
          db.prepare(
            `INSERT INTO bookings (id, token_hash, product, session, seats, email, name, payment_intent, amount, currency, status, created_at, remind_at, cancel_until)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'confirmed', ?, ?, ?)`,
          ).run(
            booking.id,
            booking.tokenHash,
            booking.product,
            booking.session,
            booking.seats,
            booking.email,
            booking.name ?? null,
            booking.paymentIntent,
            booking.amount,
            booking.currency,
            booking.createdAt,
            booking.remindAt ?? null,
            booking.cancelUntil ?? null,
          );
        }
        if (holdId) db.prepare('DELETE FROM holds WHERE id = ?').run(holdId);
        for (const mail of mails) queueMail(mail, order.createdAt);
        return 'recorded' as const;
      })();
    },

    async recordRefund({ eventId, now, mails }) {
      return db.transaction(() => {
        if (db.prepare(`UPDATE webhook_events SET outcome = 'refunded' WHERE id = ? AND outcome = 'refusing'`).run(eventId).changes === 0)
          return 'duplicate' as const;
        for (const mail of mails) queueMail(mail, now);
        return 'recorded' as const;
      })();
    },

    async find(id) {
      const row = selectBooking.get(id);
      return row ? toBooking(row) : undefined;
    },

    async beginCancellation(id) {
      return db.transaction(() => {
        db.prepare(`UPDATE bookings SET status = 'cancelling' WHERE id = ? AND status = 'confirmed'`).run(id);
        const row = db.prepare<[string], BookingRow>(`SELECT * FROM bookings WHERE id = ? AND status = 'cancelling'`).get(id);
        return row ? toBooking(row) : undefined;
      })();
    },

    async cancel(id, now, mails) {
      return db.transaction(() => {
        if (db.prepare(`UPDATE bookings SET status = 'cancelled', cancelled_at = ? WHERE id = ? AND status = 'cancelling'`).run(now, id).changes === 0)
          return undefined;
        for (const mail of mails) queueMail(mail, now);
        const row = selectBooking.get(id);
        return row ? toBooking(row) : undefined;
      })();
    },

    async move({ id, from, to, sequence, capacity, cancelUntil, remindAt, now, mails }) {
      return db.transaction((): MoveOutcome => {
        const row = selectBooking.get(id);
        if (!row || row.status !== 'confirmed' || row.session !== from || row.sequence !== sequence) return 'changed';
        if (taken(row.product, to, now) + row.seats > capacity) return 'full';
        db.prepare(
          'UPDATE bookings SET session = ?, sequence = sequence + 1, remind_at = ?, reminded_at = NULL, cancel_until = COALESCE(cancel_until, ?) WHERE id = ?',
        ).run(to, remindAt ?? null, cancelUntil, id);
        for (const mail of mails) queueMail(mail, now);
        return 'moved';
      })();
    },

    async dueReminders(now, limit) {
      return selectDue.all(now, limit).map(toBooking);
    },

    async recordReminder({ id, remindAt, now, mails }) {
      return db.transaction(() => {
        const marked = db
          .prepare(`UPDATE bookings SET reminded_at = ? WHERE id = ? AND remind_at = ? AND reminded_at IS NULL AND status = 'confirmed'`)
          .run(now, id, remindAt);
        if (marked.changes === 0) return false;
        for (const mail of mails) queueMail(mail, now);
        return true;
      })();
    },
  };
}
