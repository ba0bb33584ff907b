import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ICAL from 'ical.js';
import { afterAll, describe, expect, it } from 'vitest';
import { withFixtureContent } from '../../support/fixture-content';
import { fakeTime } from '../../support/fake-time';

withFixtureContent();

const { queueDueReminders } = await import('@/lib/bookings/reminders');
const { createScheduler } = await import('@/lib/publishing/scheduler');
const { openSqliteStore } = await import('@/lib/services/store/sqlite');

const HOUR = 3_600_000;
// The fixture training's spring session: its first meeting starts 2099-03-01T09:00:00+01:00.
const FIRST_MEETING = Date.parse('2099-03-01T08:00:00Z');
const REMIND_AT = FIRST_MEETING - 48 * HOUR;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-reminders-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** lectern's scheduler as server.ts starts it: no post ahead, the reminders looked for every minute, on a fake clock. */
function startScheduler(file: string, time: ReturnType<typeof fakeTime>) {
  const store = openSqliteStore(file);
  const scheduler = createScheduler({
    clock: time.clock,
    dates: [],
    timers: time.timers,
    onChange: async () => undefined,
    periodic: [{ name: 'booking reminders', everyMs: 60_000, run: (now) => queueDueReminders(store, now, () => undefined) }],
  });
  return { store, scheduler };
}

describe("a booking's reminder", () => {
  it('is queued once at its time, with the joining details and the calendar file, and not again by a restarted or second instance', async () => {
    const file = path.join(tmp, 'store.db');
    const time = fakeTime(REMIND_AT - 5 * 60_000);
    const first = startScheduler(file, time);
    await first.store.bookings.recordPayment({
      eventId: 'evt_1',
      order: { id: 'cs_1', product: 'fixture-training', kind: 'training', amount: 49000, currency: 'EUR', email: 'b@example.com', createdAt: 1 },
      booking: {
        id: 'bk_reminded',
        tokenHash: 'hash',
        product: 'fixture-training',
        session: 'spring',
        seats: 1,
        email: 'b@example.com',
        paymentIntent: 'pi_1',
        amount: 49000,
        currency: 'EUR',
        status: 'confirmed',
        createdAt: 1,
        remindAt: REMIND_AT,
      },
      capacity: 10,
      mails: [],
    });
    await first.scheduler.start();
    // Mail is queued at the wall clock's time: claimed by the wall clock too.
    const outbox = (store: typeof first.store, now: number) => store.outbox.claimDue({ now: Date.now(), limit: 10, leaseMs: 1, claim: `test/${now}` });

    await time.advance(REMIND_AT - 1);
    await first.scheduler.idle();
    expect(await outbox(first.store, REMIND_AT - 1)).toEqual([]);

    await time.advance(REMIND_AT + 60_000);
    await first.scheduler.idle();
    const [entry, ...more] = await outbox(first.store, REMIND_AT + 60_000);
    expect(more).toEqual([]);
    expect(entry?.mail.subject).toBe('Starting in 2 days: Fixture Training');
    expect(entry?.mail.to).toEqual({ address: 'b@example.com' });
    expect(entry?.mail.text).toContain('How to join: https://meet.example.com/fixture-joining-room');
    expect(entry?.mail.text).toContain('- Sunday 1 March 2099, 03:00–07:00 EST\n- Monday 2 March 2099, 03:00–07:00 EST');
    const events = new ICAL.Component(ICAL.parse(entry!.mail.attachments![0]!.content)).getAllSubcomponents('vevent');
    expect(events.map((event) => new ICAL.Event(event).startDate.toJSDate().toISOString())).toEqual(['2099-03-01T08:00:00.000Z', '2099-03-02T08:00:00.000Z']);
    first.scheduler.stop();
    await first.scheduler.idle();
    await first.store.close();

    // A restart on the same store, and a second instance beside it: neither queues it again.
    const restarted = startScheduler(file, time);
    const second = startScheduler(file, time);
    await Promise.all([restarted.scheduler.start(), second.scheduler.start()]);
    await time.advance(REMIND_AT + 10 * 60_000);
    await Promise.all([restarted.scheduler.idle(), second.scheduler.idle()]);
    expect(await outbox(restarted.store, REMIND_AT + 20 * 60_000)).toHaveLength(1);
    expect((await restarted.store.bookings.find('bk_reminded'))?.remindedAt).toBeGreaterThan(0);
    for (const instance of [restarted, second]) {
      instance.scheduler.stop();
      await instance.store.close();
    }
  });
});
