import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '@/lib/services/store/sqlite-database';
import { createClient } from 'redis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openUpstashStore } from '@/lib/services/store';
import { openRedisStore } from '@/lib/services/store/redis';
import { MIGRATIONS, openSqliteStore } from '@/lib/services/store/sqlite';
import { hashToken } from '@/lib/services/tokens';
import type { HeldMessage, NewsletterDelivery, OutgoingMail, Store } from '@/lib/services/store/types';
import { BOUNCE_TOKEN_DAYS, BOUNCE_TOKEN_MS } from '@/lib/services/store/bounces/types';
import { flushRedis, testRedisUrl } from '../../support/redis';
import { redisStoredData, sqliteStoredData, type StoredData } from '../../support/stored';
import { startUpstashStandIn, type UpstashStandIn } from '../../support/upstash';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';

const mail = (subject: string): OutgoingMail => ({ to: { address: 'reader@example.com' }, subject, text: 't', html: '<p>t</p>' });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-store-'));
let fileCounter = 0;

/** A backend's store, and what it keeps read straight from its file or database. */
type Opened = { store: Store; stored: StoredData };

const backends: { name: string; open: () => Promise<Opened> }[] = [
  {
    name: 'sqlite',
    open: async () => {
      const file = path.join(tmp, `store-${++fileCounter}.db`);
      const store = openSqliteStore(file);
      return { store, stored: sqliteStoredData(file) };
    },
  },
  {
    name: 'redis',
    open: async () => {
      await flushRedis(testRedisUrl(2));
      const client = createClient({ url: testRedisUrl(2) });
      await client.connect();
      const store = openRedisStore({ eval: (script, keys, args) => client.eval(script, { keys, arguments: args }) }, async () => void (await client.quit()));
      return { store, stored: await redisStoredData(testRedisUrl(2)) };
    },
  },
];

let upstash: UpstashStandIn | undefined;
backends.push({
  name: 'upstash',
  open: async () => {
    await flushRedis(testRedisUrl(12));
    upstash ??= await startUpstashStandIn(testRedisUrl(12));
    return { store: openUpstashStore(upstash.url, upstash.token, 5000), stored: await redisStoredData(testRedisUrl(12)) };
  },
});

afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  await upstash?.close();
});

describe.each(backends)('the $name store', ({ name, open }) => {
  let store: Store;
  let stored: StoredData;
  beforeEach(async () => {
    await Promise.all([store?.close(), stored?.close()]);
    ({ store, stored } = await open());
  });
  afterAll(async () => Promise.all([store?.close(), stored?.close()]));

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  describe('subscribers', () => {
    const subscribe = (email: string, confirm: string, unsubscribe: string, now = 1000) =>
      store.subscribers.subscribe({
        email,
        name: 'Reader',
        confirmTokenHash: confirm,
        unsubscribeTokenHash: unsubscribe,
        now,
        resend: RESEND,
        mail: mail(`confirm ${confirm}`),
      });
    const HOUR = 60 * 60 * 1000;
    const DAY = 24 * HOUR;
    /** One confirmation an hour and three a day, on the clock each call is given. */
    const RESEND = { afterMs: HOUR, atMost: 3, perMs: DAY };

    /** A subscriber as the owner's export lists it. */
    const subscriber = async (email: string) => (await store.subscribers.list()).find((entry) => entry.email === email);

    it('stores a new subscriber as pending and queues the confirmation mail with it', async () => {
      await subscribe('a@example.com', 'c1', 'u1');
      expect(await store.subscribers.list()).toEqual([{ email: 'a@example.com', name: 'Reader', status: 'pending', createdAt: 1000 }]);
    });

    it('mails a pending address again once the hour is over, with a new confirmation token; the unsubscribe token of every mail keeps working', async () => {
      expect(await subscribe('a@example.com', 'c1', 'u1')).toBe(true);
      expect(await subscribe('a@example.com', 'c2', 'u2', 1000 + HOUR)).toBe(true);
      expect(await stored.unsentMailCount()).toBe(2);
      expect(await store.subscribers.confirm('c1', 2000, 0)).toBeUndefined();
      expect(await store.subscribers.confirm('c2', 2000, 0)).toEqual({
        state: 'confirmed',
        subscriber: expect.objectContaining({ email: 'a@example.com', status: 'confirmed', confirmedAt: 2000 }),
      });
      expect(await store.subscribers.unsubscribe('u1', 3000)).toMatchObject({ email: 'a@example.com', status: 'unsubscribed' });
      expect(await store.subscribers.unsubscribe('u2', 3000)).toMatchObject({ email: 'a@example.com', status: 'unsubscribed' });
    });

    it('confirms once; a used or unknown token confirms nothing', async () => {
      await subscribe('a@example.com', 'c1', 'u1');
      expect(await store.subscribers.confirmationState('c1', 0)).toBe('pending');
      const confirmed = await store.subscribers.confirm('c1', 2000, 0);
      expect(confirmed).toMatchObject({ state: 'confirmed', subscriber: { status: 'confirmed' } });
      expect(await store.subscribers.confirmationState('c1', 0)).toBeUndefined();
      expect(await store.subscribers.confirm('c1', 3000, 0)).toBeUndefined();
      expect(await store.subscribers.confirm('nope', 3000, 0)).toBeUndefined();
    });

    it('refuses a confirmation token issued before the cutoff and changes nothing; a new subscription issues a fresh one', async () => {
      await subscribe('a@example.com', 'c1', 'u1', 1000);
      const cutoff = 1000 + 1;
      expect(await store.subscribers.confirmationState('c1', cutoff)).toBe('expired');
      expect(await store.subscribers.confirm('c1', 8 * DAY, cutoff)).toEqual({ state: 'expired' });
      expect(await subscriber('a@example.com')).toMatchObject({ status: 'pending' });
      expect(await store.subscribers.confirmationState('c1', 1000)).toBe('pending');
      await subscribe('a@example.com', 'c2', 'u2', 8 * DAY);
      expect(await store.subscribers.confirmationState('c1', 0)).toBeUndefined();
      expect(await store.subscribers.confirm('c2', 8 * DAY, cutoff)).toMatchObject({ state: 'confirmed' });
    });

    it('queues the welcome mail to a confirmed address with its own unsubscribe token, and nothing to an address not confirmed', async () => {
      await subscribe('a@example.com', 'c1', 'u1');
      const welcome = (email: string, unsubscribe: string) =>
        store.subscribers.welcome({ email, unsubscribeTokenHash: unsubscribe, now: 2500, mail: { ...mail('welcome'), to: { address: email } } });
      expect(await welcome('a@example.com', 'w0')).toBe(false);
      expect(await welcome('nobody@example.com', 'w1')).toBe(false);
      expect(await stored.unsentMailCount()).toBe(1);
      await store.subscribers.confirm('c1', 2000, 0);
      expect(await welcome('a@example.com', 'w2')).toBe(true);
      expect(await stored.unsentMailCount()).toBe(2);
      expect(await store.subscribers.unsubscribe('w0', 3000)).toBeUndefined();
      expect(await store.subscribers.unsubscribe('w2', 3000)).toMatchObject({ email: 'a@example.com', status: 'unsubscribed' });
      expect(await welcome('a@example.com', 'w3')).toBe(false);
    });

    it('leaves a confirmed subscriber alone when the address subscribes again', async () => {
      await subscribe('a@example.com', 'c1', 'u1');
      await store.subscribers.confirm('c1', 2000, 0);
      await subscribe('a@example.com', 'c9', 'u9');
      expect((await subscriber('a@example.com'))?.status).toBe('confirmed');
      // No mail carried u9, so it unsubscribes nobody.
      expect(await store.subscribers.unsubscribe('u9', 3000)).toBeUndefined();
    });

    it('unsubscribes by token, again without harm, and a later subscription starts pending again', async () => {
      await subscribe('a@example.com', 'c1', 'u1');
      await store.subscribers.confirm('c1', 2000, 0);
      expect(await store.subscribers.unsubscribe('u1', 3000)).toMatchObject({ email: 'a@example.com', status: 'unsubscribed' });
      expect(await store.subscribers.unsubscribe('u1', 3500)).toMatchObject({ email: 'a@example.com', status: 'unsubscribed' });
      expect(await store.subscribers.unsubscribe('wrong', 3000)).toBeUndefined();
      await subscribe('a@example.com', 'c3', 'u3', 1000 + HOUR);
      expect((await subscriber('a@example.com'))?.status).toBe('pending');
    });

    it('mails an address at most once an hour, whoever asks: a request sooner changes nothing, and the link mailed keeps working', async () => {
      expect(await subscribe('a@example.com', 'c1', 'u1', 1000)).toBe(true);
      for (const [confirm, now] of [
        ['c2', 1001],
        ['c3', 1000 + HOUR / 2],
        ['c4', 1000 + HOUR - 1],
      ] as const) {
        expect(await subscribe('a@example.com', confirm, `u-${confirm}`, now)).toBe(false);
        expect(await store.subscribers.confirmationState(confirm, 0)).toBeUndefined();
      }
      // No mail carried the unsubscribe tokens of the refused requests.
      expect(await store.subscribers.unsubscribe('u-c2', 2000)).toBeUndefined();
      expect(await store.subscribers.confirm('c1', 2000 + HOUR, 0)).toMatchObject({ state: 'confirmed' });
    });

    it('mails an address at most three times a day, counted from the first mail of the day', async () => {
      const mailed = [];
      for (const now of [0, HOUR, 2 * HOUR, 3 * HOUR, 20 * HOUR, DAY - 1, DAY, DAY + HOUR])
        mailed.push(await subscribe('a@example.com', `c${now}`, `u${now}`, now));
      expect(mailed).toEqual([true, true, true, false, false, false, true, true]);
      expect(await stored.unsentMailCount()).toBe(5);
      expect(await store.subscribers.confirmationState(`c${DAY + HOUR}`, 0)).toBe('pending');
    });

    it('does not mail an unsubscribed address that asks again within the hour, and leaves it unsubscribed', async () => {
      await subscribe('a@example.com', 'c1', 'u1', 1000);
      await store.subscribers.unsubscribe('u1', 2000);
      expect(await subscribe('a@example.com', 'c2', 'u2', 3000)).toBe(false);
      expect((await subscriber('a@example.com'))?.status).toBe('unsubscribed');
    });

    it('an unsubscribe of a pending address voids its confirmation link', async () => {
      await subscribe('a@example.com', 'c1', 'u1');
      await store.subscribers.unsubscribe('u1', 2000);
      expect(await store.subscribers.confirmationState('c1', 0)).toBeUndefined();
      expect(await store.subscribers.confirm('c1', 3000, 0)).toBeUndefined();
      expect((await subscriber('a@example.com'))?.status).toBe('unsubscribed');
    });
  });

  describe('support', () => {
    it('stores support messages with their mail in one write', async () => {
      await store.support.save({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'Line 1\nLine 2', createdAt: 5 }, [
        mail('owner'),
        mail('receipt'),
      ]);
      expect(await stored.supportMessages()).toEqual([{ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'Line 1\nLine 2', createdAt: 5 }]);
      expect(await stored.unsentMailCount()).toBe(2);
    });
  });

  describe('outbox', () => {
    /** Claims due mail under a claim named after `who`, as a sender makes one per batch. */
    const claimDue = (now: number, leaseMs: number, who = 'sender-a') => store.outbox.claimDue({ now, limit: 10, leaseMs, claim: `${who}/${now}` });

    it('leases due mail, hands it back after the lease, and settles it once sent', async () => {
      await store.support.save({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'M', createdAt: 5 }, [mail('owner')]);
      const [claimed] = await claimDue(10, 100);
      expect(claimed?.mail.subject).toBe('owner');
      expect(await claimDue(50, 100)).toEqual([]);
      const [again] = await claimDue(111, 100);
      expect(again?.id).toBe(claimed?.id);
      await store.outbox.retryLater({ id: again!.id, claim: again!.claim, attempts: 1, nextAttemptAt: 500, error: 'connection refused' });
      expect(await claimDue(499, 100)).toEqual([]);
      const [retried] = await claimDue(500, 100);
      expect(retried).toMatchObject({ id: claimed?.id, attempts: 1 });
      expect(await store.outbox.markSent({ id: retried!.id, claim: retried!.claim, now: 600 })).toBe(true);
      expect(await stored.unsentMailCount()).toBe(0);
      expect(await claimDue(10_000, 100)).toEqual([]);
    });

    it('renews, settles and gives back mail only for the claim that holds it', async () => {
      await store.support.save({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'M', createdAt: 5 }, [mail('one')]);
      const [first] = await claimDue(10, 100, 'sender-a');
      // Renewed before the lease ends, it stays with its claim past the first lease.
      expect(await store.outbox.renew({ ids: [first!.id], claim: first!.claim, now: 90, leaseMs: 100 })).toEqual([first!.id]);
      expect(await claimDue(150, 100, 'sender-b')).toEqual([]);
      // Not renewed, it goes to another sender when its lease ends; the first claim then holds nothing.
      const [taken] = await claimDue(190, 100, 'sender-b');
      expect(taken).toMatchObject({ id: first!.id, claim: 'sender-b/190' });
      expect(await store.outbox.renew({ ids: [first!.id], claim: first!.claim, now: 200, leaseMs: 100 })).toEqual([]);
      expect(await store.outbox.markSent({ id: first!.id, claim: first!.claim, now: 200 })).toBe(false);
      await store.outbox.retryLater({ id: first!.id, claim: first!.claim, attempts: 5, nextAttemptAt: 200, error: 'stale' });
      await store.outbox.release({ ids: [first!.id], claim: first!.claim, now: 200 });
      // None of the stale writes moved it: the second sender's lease holds (until 290) and it is unsent.
      expect(await claimDue(289, 100, 'sender-c')).toEqual([]);
      expect(await store.outbox.markSent({ id: taken!.id, claim: taken!.claim, now: 250 })).toBe(true);
      expect(await stored.unsentMailCount()).toBe(0);
      expect(await store.outbox.markSent({ id: taken!.id, claim: taken!.claim, now: 260 })).toBe(false);
      expect(await store.outbox.renew({ ids: [taken!.id], claim: taken!.claim, now: 260, leaseMs: 100 })).toEqual([]);
    });

    it('gives released claims back at once, and never brings a sent message back', async () => {
      await store.support.save({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'M', createdAt: 5 }, [mail('first'), mail('second')]);
      const claimed = await claimDue(10, 60_000);
      expect(claimed).toHaveLength(2);
      const first = claimed.find((entry) => entry.mail.subject === 'first')!;
      const second = claimed.find((entry) => entry.mail.subject === 'second')!;
      await store.outbox.markSent({ id: first.id, claim: first.claim, now: 20 });
      // A sender that stops gives back both; only the unsent one is due again, long before its lease ends.
      await store.outbox.release({ ids: [first.id, second.id], claim: first.claim, now: 30 });
      const again = await claimDue(31, 60_000);
      expect(again.map((entry) => entry.mail.subject)).toEqual(['second']);
      expect(again[0]?.attempts).toBe(second.attempts);
      await store.outbox.release({ ids: [], claim: first.claim, now: 40 });
    });

    it('purges sent mail older than the cutoff, keeping newer sent mail and every unsent message', async () => {
      await store.support.save({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'M', createdAt: 5 }, [
        mail('old'),
        mail('new'),
        mail('unsent'),
        mail('failing'),
      ]);
      const claimed = await claimDue(10, 100);
      const entry = (subject: string) => claimed.find((candidate) => candidate.mail.subject === subject)!;
      await store.outbox.markSent({ id: entry('old').id, claim: entry('old').claim, now: 1_000 });
      await store.outbox.markSent({ id: entry('new').id, claim: entry('new').claim, now: 5_000 });
      await store.outbox.retryLater({ id: entry('failing').id, claim: entry('failing').claim, attempts: 1, nextAttemptAt: 20, error: 'connection refused' });
      expect(await store.outbox.purgeSent(5_000)).toBe(1);
      expect(await store.outbox.purgeSent(5_000)).toBe(0);
      // The unsent ones are still there to send (the lease of 'unsent' ends at 110).
      expect((await claimDue(200, 100)).map((candidate) => candidate.mail.subject).sort()).toEqual(['failing', 'unsent']);
      expect(await store.outbox.purgeSent(5_001)).toBe(1);
      expect(await stored.unsentMailCount()).toBe(2);
    });
  });

  describe('bookings', () => {
    const order = (id: string) => ({ id, product: 'course', kind: 'training', amount: 49000, currency: 'EUR', email: 'b@example.com', createdAt: 1_000 });
    const booking = (id: string, seats: number) => ({
      id,
      tokenHash: `hash-${id}`,
      product: 'course',
      session: 's1',
      seats,
      email: 'b@example.com',
      name: 'Buyer',
      paymentIntent: `pi_${id}`,
      amount: 49000 * seats,
      currency: 'EUR',
      status: 'confirmed' as const,
      createdAt: 1_000,
    });

    const hold = (id: string, session: string, seats: number, expiresAt: number, client = '192.0.2.1') => ({
      id,
      client,
      product: 'course',
      session,
      seats,
      expiresAt,
    });
    const limits = { capacity: 10, perClient: 100 };

    it('holds seats only while bookings and unexpired holds leave room', async () => {
      expect(await store.bookings.holdSeats(hold('h1', 's1', 6, 5_000), limits, 1_000)).toEqual({ held: hold('h1', 's1', 6, 5_000), fresh: true });
      expect(await store.bookings.holdSeats(hold('h2', 's1', 5, 5_000), limits, 1_000)).toEqual({ refused: 'session-full' });
      expect(await store.bookings.holdSeats(hold('h3', 's2', 5, 5_000), limits, 1_000)).toMatchObject({ fresh: true });
      expect(await store.bookings.seatsTaken('course', 's1', 1_000)).toBe(6);
      // The hold of h1 has expired by 5_000.
      expect(await store.bookings.holdSeats(hold('h4', 's1', 10, 9_000), limits, 5_000)).toMatchObject({ fresh: true });
      await store.bookings.releaseHold('h4');
      expect(await store.bookings.seatsTaken('course', 's1', 5_000)).toBe(0);
    });

    it('limits the seats one client holds at once across sessions; expired, released and paid holds stop counting', async () => {
      const perClient = { capacity: 10, perClient: 4 };
      expect(await store.bookings.holdSeats(hold('a1', 's1', 3, 5_000), perClient, 1_000)).toMatchObject({ fresh: true });
      expect(await store.bookings.holdSeats(hold('a2', 's2', 2, 6_000), perClient, 1_000)).toEqual({ refused: 'client-limit' });
      expect(await store.bookings.seatsTaken('course', 's2', 1_000)).toBe(0);
      expect(await store.bookings.holdSeats(hold('b1', 's2', 2, 6_000, '2001:db8:1:2::/64'), perClient, 1_000)).toMatchObject({ fresh: true });
      expect(await store.bookings.holdSeats(hold('a3', 's2', 1, 6_000), perClient, 1_000)).toMatchObject({ fresh: true });
      expect(await store.bookings.seatsHeldBy('192.0.2.1', 1_000)).toBe(4);
      expect(await store.bookings.seatsHeldBy('2001:db8:1:2::/64', 1_000)).toBe(2);
      // a1 expires at 5_000; a3 is released; so the client holds nothing and may hold 4 again.
      await store.bookings.releaseHold('a3');
      expect(await store.bookings.seatsHeldBy('192.0.2.1', 5_000)).toBe(0);
      expect(await store.bookings.holdSeats(hold('a4', 's1', 4, 9_000), perClient, 5_000)).toMatchObject({ fresh: true });
      expect(
        await store.bookings.recordPayment({ eventId: 'evt_a4', order: order('cs_a4'), booking: booking('bk_a4', 4), capacity: 10, holdId: 'a4', mails: [] }),
      ).toBe('recorded');
      expect(await store.bookings.seatsHeldBy('192.0.2.1', 5_000)).toBe(0);
    });

    it('holds a repeated hold id once, as first stored, until it expires', async () => {
      expect(await store.bookings.holdSeats(hold('h1', 's1', 3, 5_000), { capacity: 10, perClient: 4 }, 1_000)).toMatchObject({ fresh: true });
      expect(await store.bookings.holdSeats(hold('h1', 's1', 3, 7_000), { capacity: 10, perClient: 4 }, 2_000)).toEqual({
        held: hold('h1', 's1', 3, 5_000),
        fresh: false,
      });
      expect(await store.bookings.seatsTaken('course', 's1', 2_000)).toBe(3);
      expect(await store.bookings.seatsHeldBy('192.0.2.1', 2_000)).toBe(3);
      expect(await store.bookings.holdSeats(hold('h1', 's1', 3, 9_000), { capacity: 10, perClient: 4 }, 5_000)).toEqual({
        held: hold('h1', 's1', 3, 9_000),
        fresh: true,
      });
      expect(await store.bookings.seatsTaken('course', 's1', 5_000)).toBe(3);
    });

    it('records a payment once per event, turning its hold into a booking', async () => {
      await store.bookings.holdSeats(hold('h1', 's1', 2, 5_000), limits, 1_000);
      expect(
        await store.bookings.recordPayment({
          eventId: 'evt_1',
          order: order('cs_1'),
          booking: booking('bk_1', 2),
          capacity: 10,
          holdId: 'h1',
          mails: [mail('receipt')],
        }),
      ).toBe('recorded');
      expect(
        await store.bookings.recordPayment({
          eventId: 'evt_1',
          order: order('cs_1'),
          booking: booking('bk_2', 2),
          capacity: 10,
          holdId: 'h1',
          mails: [mail('receipt')],
        }),
      ).toBe('duplicate');
      expect(await store.bookings.seatsTaken('course', 's1', 1_000)).toBe(2);
      expect(await store.bookings.seatsTaken('course', 's1', 10_000)).toBe(2);
      expect((await stored.orders()).map((entry) => entry.id)).toEqual(['cs_1']);
      expect(await store.bookings.find('bk_1')).toEqual(booking('bk_1', 2));
      expect(await store.bookings.find('bk_2')).toBeUndefined();
    });

    it('records a payment whose own hold still stands even when the session is otherwise full', async () => {
      await store.bookings.holdSeats(hold('mine', 's1', 4, 5_000), limits, 500);
      await store.bookings.holdSeats(hold('other', 's1', 6, 5_000, '198.51.100.7'), limits, 500);
      expect(
        await store.bookings.recordPayment({
          eventId: 'evt_mine',
          order: order('cs_mine'),
          booking: booking('bk_mine', 4),
          capacity: 10,
          holdId: 'mine',
          mails: [],
        }),
      ).toBe('recorded');
      expect(await store.bookings.seatsTaken('course', 's1', 1_000)).toBe(10);
    });

    it('refuses a payment for a session that is full now, keeping nothing until its refund is settled once', async () => {
      // The buyer's hold h1 expired at 900; someone else holds 9 of 10 seats.
      await store.bookings.holdSeats(hold('h1', 's1', 2, 900), limits, 500);
      await store.bookings.holdSeats(hold('h2', 's1', 9, 5_000, '198.51.100.7'), limits, 950);
      const late = { eventId: 'evt_late', order: order('cs_late'), booking: booking('bk_late', 2), capacity: 10, holdId: 'h1', mails: [mail('receipt')] };
      expect(await store.bookings.recordPayment(late)).toBe('full');
      expect(await store.bookings.recordPayment(late)).toBe('full');
      expect(await store.bookings.find('bk_late')).toBeUndefined();
      expect(await stored.orders()).toEqual([]);
      expect(await store.bookings.seatsTaken('course', 's1', 1_000)).toBe(9);
      expect(await stored.unsentMailCount()).toBe(0);
      expect(await store.bookings.recordRefund({ eventId: 'evt_late', now: 1_000, mails: [mail('refunded')] })).toBe('recorded');
      expect(await store.bookings.recordRefund({ eventId: 'evt_late', now: 1_000, mails: [mail('refunded')] })).toBe('duplicate');
      expect(await store.bookings.recordPayment(late)).toBe('duplicate');
      expect(await store.bookings.recordRefund({ eventId: 'evt_unknown', now: 1_000, mails: [mail('refunded')] })).toBe('duplicate');
    });

    it('cancels in two steps: the intent first (seats still taken), then once, freeing its seats', async () => {
      await store.bookings.recordPayment({ eventId: 'evt_1', order: order('cs_1'), booking: booking('bk_1', 3), capacity: 10, mails: [] });
      expect(await store.bookings.seatsTaken('course', 's1', 1_000)).toBe(3);
      expect(await store.bookings.cancel('bk_1', 2_000, [mail('cancelled')])).toBeUndefined();
      expect(await store.bookings.beginCancellation('bk_1')).toMatchObject({ id: 'bk_1', status: 'cancelling' });
      expect(await store.bookings.beginCancellation('bk_1')).toMatchObject({ id: 'bk_1', status: 'cancelling' });
      expect((await store.bookings.find('bk_1'))?.status).toBe('cancelling');
      expect(await store.bookings.seatsTaken('course', 's1', 1_000)).toBe(3);
      expect(await store.bookings.cancel('bk_1', 2_000, [mail('cancelled')])).toMatchObject({ id: 'bk_1', status: 'cancelled', cancelledAt: 2_000 });
      expect(await store.bookings.cancel('bk_1', 3_000, [mail('cancelled')])).toBeUndefined();
      expect(await store.bookings.beginCancellation('bk_1')).toBeUndefined();
      expect(await store.bookings.beginCancellation('bk_none')).toBeUndefined();
      expect(await store.bookings.cancel('bk_none', 3_000, [])).toBeUndefined();
      expect(await store.bookings.seatsTaken('course', 's1', 3_000)).toBe(0);
    });

    const move = (id: string, to: string, sequence: number, capacity = 4, from = 's1', remindAt?: number) =>
      store.bookings.move({
        id,
        from,
        to,
        sequence,
        capacity,
        cancelUntil: 1_000,
        ...(remindAt !== undefined ? { remindAt } : {}),
        now: 2_000,
        mails: [mail(`moved to ${to}`)],
      });

    it('moves a booking in one step: seats taken in the new session and freed in the old, the sequence raised, its mail queued', async () => {
      await store.bookings.recordPayment({ eventId: 'evt_1', order: order('cs_1'), booking: booking('bk_1', 3), capacity: 10, mails: [] });
      await store.bookings.holdSeats(hold('h_s2', 's2', 1, 5_000), limits, 1_000);
      // Three seats do not fit beside the one held in a session of three: nothing changes.
      expect(await move('bk_1', 's2', 0, 3)).toBe('full');
      expect(await store.bookings.find('bk_1')).toEqual(booking('bk_1', 3));
      expect(await stored.unsentMailCount()).toBe(0);
      expect(await move('bk_1', 's2', 0, 4, 's1', 9_000)).toBe('moved');
      expect(await store.bookings.seatsTaken('course', 's1', 2_000)).toBe(0);
      expect(await store.bookings.seatsTaken('course', 's2', 2_000)).toBe(4);
      expect(await store.bookings.find('bk_1')).toEqual({ ...booking('bk_1', 3), session: 's2', sequence: 1, remindAt: 9_000, cancelUntil: 1_000 });
      expect(await stored.unsentMailCount()).toBe(1);
      // A second move asked of the booking as it was (the same page sent twice) changes nothing.
      expect(await move('bk_1', 's3', 0)).toBe('changed');
      expect(await move('bk_1', 's3', 1, 4, 's2')).toBe('moved');
      expect(await store.bookings.find('bk_1')).toMatchObject({ session: 's3', sequence: 2 });
      expect((await store.bookings.find('bk_1'))?.remindAt).toBeUndefined();
      expect(await store.bookings.seatsTaken('course', 's2', 2_000)).toBe(1);
      // A cancelled booking frees the seats of the session it moved to, and cannot move.
      await store.bookings.beginCancellation('bk_1');
      expect(await move('bk_1', 's1', 2, 4, 's3')).toBe('changed');
      await store.bookings.cancel('bk_1', 3_000, []);
      expect(await store.bookings.seatsTaken('course', 's3', 3_000)).toBe(0);
      expect(await move('bk_unknown', 's2', 0)).toBe('changed');
    });

    it('keeps the free-cancellation deadline fixed when booked through every move', async () => {
      await store.bookings.recordPayment({
        eventId: 'evt_1',
        order: order('cs_1'),
        booking: { ...booking('bk_1', 1), cancelUntil: 7_000 },
        capacity: 10,
        mails: [],
      });
      expect(await store.bookings.find('bk_1')).toMatchObject({ session: 's1', cancelUntil: 7_000 });
      expect(await move('bk_1', 's2', 0)).toBe('moved');
      expect(await store.bookings.find('bk_1')).toMatchObject({ session: 's2', cancelUntil: 7_000 });
    });

    it('gives a booking recorded without a deadline the one its move carries, and keeps it through the next move', async () => {
      await store.bookings.recordPayment({ eventId: 'evt_1', order: order('cs_1'), booking: booking('bk_1', 1), capacity: 10, mails: [] });
      expect((await store.bookings.find('bk_1'))?.cancelUntil).toBeUndefined();
      expect(await move('bk_1', 's2', 0)).toBe('moved');
      expect(await store.bookings.find('bk_1')).toMatchObject({ session: 's2', cancelUntil: 1_000 });
      expect(await store.bookings.move({ id: 'bk_1', from: 's2', to: 's3', sequence: 1, capacity: 4, cancelUntil: 9_000, now: 3_000, mails: [] })).toBe(
        'moved',
      );
      expect(await store.bookings.find('bk_1')).toMatchObject({ session: 's3', cancelUntil: 1_000 });
    });

    it('gives the last seat to one of two moves racing for it', async () => {
      await store.bookings.recordPayment({ eventId: 'evt_1', order: order('cs_1'), booking: booking('bk_1', 1), capacity: 10, mails: [] });
      await store.bookings.recordPayment({ eventId: 'evt_2', order: order('cs_2'), booking: booking('bk_2', 1), capacity: 10, mails: [] });
      const outcomes = await Promise.all([move('bk_1', 's2', 0, 1), move('bk_2', 's2', 0, 1)]);
      expect(outcomes.sort()).toEqual(['full', 'moved']);
      expect(await store.bookings.seatsTaken('course', 's2', 2_000)).toBe(1);
      expect(await store.bookings.seatsTaken('course', 's1', 2_000)).toBe(1);
    });

    it('answers due reminders and queues each once, never for a cancelled or moved booking', async () => {
      const withReminder = (id: string, remindAt: number) => ({ ...booking(id, 1), remindAt });
      await store.bookings.recordPayment({ eventId: 'evt_1', order: order('cs_1'), booking: withReminder('bk_1', 5_000), capacity: 10, mails: [] });
      await store.bookings.recordPayment({ eventId: 'evt_2', order: order('cs_2'), booking: withReminder('bk_2', 4_000), capacity: 10, mails: [] });
      await store.bookings.recordPayment({ eventId: 'evt_3', order: order('cs_3'), booking: withReminder('bk_3', 9_000), capacity: 10, mails: [] });
      await store.bookings.recordPayment({ eventId: 'evt_4', order: order('cs_4'), booking: booking('bk_4', 1), capacity: 10, mails: [] });
      expect(await store.bookings.dueReminders(3_999, 10)).toEqual([]);
      expect((await store.bookings.dueReminders(5_000, 10)).map((due) => due.id)).toEqual(['bk_2', 'bk_1']);
      expect((await store.bookings.dueReminders(5_000, 1)).map((due) => due.id)).toEqual(['bk_2']);
      const remind = (id: string, remindAt: number) => store.bookings.recordReminder({ id, remindAt, now: 5_000, mails: [mail(`reminder ${id}`)] });
      // Two instances racing for one reminder: one queues it.
      expect((await Promise.all([remind('bk_1', 5_000), remind('bk_1', 5_000)])).sort()).toEqual([false, true]);
      expect(await remind('bk_1', 5_000)).toBe(false);
      expect(await store.bookings.find('bk_1')).toMatchObject({ remindedAt: 5_000 });
      expect((await store.bookings.dueReminders(5_000, 10)).map((due) => due.id)).toEqual(['bk_2']);
      expect(await stored.unsentMailCount()).toBe(1);
      // A booking moved since it was read has another reminder time: the old one is not sent.
      expect(await move('bk_2', 's2', 0, 10, 's1', 8_000)).toBe('moved');
      expect(await remind('bk_2', 4_000)).toBe(false);
      expect((await store.bookings.dueReminders(9_000, 10)).map((due) => due.id)).toEqual(['bk_2', 'bk_3']);
      await store.bookings.beginCancellation('bk_3');
      expect((await store.bookings.dueReminders(9_000, 10)).map((due) => due.id)).toEqual(['bk_2']);
      expect(await remind('bk_3', 9_000)).toBe(false);
      await store.bookings.cancel('bk_3', 9_000, []);
      expect(await remind('bk_2', 8_000)).toBe(true);
      expect(await store.bookings.dueReminders(10_000, 10)).toEqual([]);
      // The move's mail and two reminders.
      expect(await stored.unsentMailCount()).toBe(3);
    });
  });

  describe('orders', () => {
    const paid = (id: string, email: string, createdAt: number, paymentIntent?: string) => ({
      eventId: `evt_${id}`,
      order: { id, product: 'book', kind: 'book', amount: 3400, currency: 'EUR', email, createdAt, ...(paymentIntent ? { paymentIntent } : {}) },
      mails: [mail('receipt')],
    });
    const use = (order: string, link: string, count = true) => store.orders.useLink({ order, link, limit: 2, count, expires: 10_000_000_000_000 });

    it('counts each link’s downloads up to its limit; a resumed download counts nothing and works until the limit is passed', async () => {
      await store.bookings.recordPayment(paid('cs_1', 'Buyer@Example.com', 1_000, 'pi_1'));
      expect(await use('cs_1', 'cs_1:0:9')).toEqual({ outcome: 'ok', order: expect.objectContaining({ id: 'cs_1', product: 'book', paymentIntent: 'pi_1' }) });
      expect((await use('cs_1', 'cs_1:0:9', false)).outcome).toBe('ok');
      expect((await use('cs_1', 'cs_1:0:9')).outcome).toBe('ok');
      expect((await use('cs_1', 'cs_1:0:9')).outcome).toBe('used-up');
      expect((await use('cs_1', 'cs_1:0:9', false)).outcome).toBe('ok');
      // Another link of the same order (another file, or a resent link) counts on its own.
      expect((await use('cs_1', 'cs_1:1:9')).outcome).toBe('ok');
      expect((await use('cs_none', 'cs_none:0:9')).outcome).toBe('unknown');
    });

    it('refuses every link of a refunded order, found by its payment intent, and leaves it out of the address’s orders', async () => {
      await store.bookings.recordPayment(paid('cs_1', 'buyer@example.com', 1_000, 'pi_1'));
      await store.bookings.recordPayment(paid('cs_2', 'BUYER@example.com', 2_000, 'pi_2'));
      await store.bookings.recordPayment(paid('cs_3', 'other@example.com', 3_000));
      expect((await store.orders.paidBy('Buyer@Example.com')).map((order) => order.id)).toEqual(['cs_1', 'cs_2']);
      expect(await store.orders.refund('pi_1', 5_000)).toBe('cs_1');
      expect(await store.orders.refund('pi_1', 6_000)).toBe('cs_1');
      expect(await store.orders.refund('pi_unknown', 6_000)).toBeUndefined();
      expect((await use('cs_1', 'cs_1:0:9')).outcome).toBe('refunded');
      expect((await use('cs_2', 'cs_2:0:9')).outcome).toBe('ok');
      expect((await store.orders.paidBy('buyer@example.com')).map((order) => order.id)).toEqual(['cs_2']);
      expect(await store.orders.paidBy('nobody@example.com')).toEqual([]);
    });

    it('finds a paid order by its id, with the session and seats a training order bought; none once refunded, none for an unknown id', async () => {
      await store.bookings.recordPayment(paid('cs_1', 'buyer@example.com', 1_000, 'pi_1'));
      await store.bookings.recordPayment({
        ...paid('cs_2', 'buyer@example.com', 2_000),
        order: { ...paid('cs_2', 'buyer@example.com', 2_000).order, kind: 'training', session: 's1', seats: 2 },
      });
      expect(await store.orders.find('cs_1')).toEqual({
        id: 'cs_1',
        product: 'book',
        kind: 'book',
        amount: 3400,
        currency: 'EUR',
        email: 'buyer@example.com',
        createdAt: 1_000,
        paymentIntent: 'pi_1',
      });
      expect(await store.orders.find('cs_2')).toMatchObject({ id: 'cs_2', kind: 'training', session: 's1', seats: 2 });
      expect(await store.orders.find('cs_unknown')).toBeUndefined();
      await store.orders.refund('pi_1', 5_000);
      expect(await store.orders.find('cs_1')).toBeUndefined();
    });

    it('gives an address one resend per cooldown, whatever its case, queueing its mail with the turn', async () => {
      const before = await stored.unsentMailCount();
      expect(await store.orders.claimResend({ email: 'Buyer@example.com', now: 1_000, cooldownMs: 60_000, mails: [mail('again')] })).toBe(true);
      expect(await store.orders.claimResend({ email: 'buyer@example.com', now: 30_000, cooldownMs: 60_000, mails: [mail('again')] })).toBe(false);
      expect(await store.orders.claimResend({ email: 'other@example.com', now: 30_000, cooldownMs: 60_000, mails: [] })).toBe(true);
      expect(await stored.unsentMailCount()).toBe(before + 1);
      expect(await store.orders.claimResend({ email: 'buyer@example.com', now: 61_000, cooldownMs: 60_000, mails: [mail('again')] })).toBe(true);
      expect(await stored.unsentMailCount()).toBe(before + 2);
    });
  });

  describe('newsletter', () => {
    /** A subscriber confirmed with tokens named after the address. */
    const confirmed = async (email: string, now = 1000) => {
      await store.subscribers.subscribe({
        email,
        confirmTokenHash: `c-${email}`,
        unsubscribeTokenHash: `u-${email}`,
        now,
        resend: CONFIRMATION_RESEND,
        mail: mail('confirm'),
      });
      await store.subscribers.confirm(`c-${email}`, now, 0);
    };
    // Every claim hands out fresh token hashes and a claim of its own, as the sender makes them.
    let claims = 0;
    const claim = (slug: string, now: number, count = 10, leaseMs = 60_000, who = 'sender-a') => {
      claims++;
      return store.newsletter.claim({
        slug,
        now,
        leaseMs,
        tokenHashes: Array.from({ length: count }, (_, index) => `t-${slug}-${claims}-${index}`),
        claim: `${who}/${claims}`,
      });
    };
    /** A claimed message as its sender holds it. */
    const held = (delivery: NewsletterDelivery | undefined): HeldMessage => ({ email: delivery?.email ?? '', claim: delivery?.claim ?? '' });
    const send = async (slug: string) => (await store.newsletter.sends()).find((entry) => entry.slug === slug);

    it('records the first baseline once; only recorded posts are reported as recorded', async () => {
      expect(await store.newsletter.recorded(['a'])).toBeUndefined();
      expect(await store.newsletter.recordBaseline(['a', 'b'], 1000)).toBe(true);
      expect(await store.newsletter.recordBaseline(['c'], 2000)).toBe(false);
      expect(await store.newsletter.recorded(['a', 'b', 'c'])).toEqual(new Set(['a', 'b']));
      await store.newsletter.recordSkipped('c', 3000);
      expect(await store.newsletter.recorded(['c', 'd'])).toEqual(new Set(['c']));
      expect(await store.newsletter.startSend({ slug: 'c', mail: '{}', now: 4000 })).toEqual({ started: false, recipients: 0 });
      expect(await store.newsletter.recorded([])).toEqual(new Set());
    });

    it('fixes the audience at the start (confirmed only), once per post, and stores the mail once', async () => {
      await store.newsletter.recordBaseline([], 500);
      await confirmed('a@example.com');
      await confirmed('b@example.com');
      await store.subscribers.subscribe({
        email: 'p@example.com',
        confirmTokenHash: 'cp',
        unsubscribeTokenHash: 'up',
        now: 1000,
        resend: CONFIRMATION_RESEND,
        mail: mail('confirm'),
      });
      expect(await store.newsletter.startSend({ slug: 'post', mail: '{"subject":"S"}', now: 2000 })).toEqual({ started: true, recipients: 2 });
      expect(await store.newsletter.startSend({ slug: 'post', mail: '{}', now: 2001 })).toEqual({ started: false, recipients: 0 });
      await confirmed('late@example.com', 2500);
      expect(await store.newsletter.sendMail('post')).toBe('{"subject":"S"}');
      expect(await store.newsletter.activeSends()).toEqual(['post']);
      const claimed = await claim('post', 3000);
      expect(claimed.map((delivery) => delivery.email).sort()).toEqual(['a@example.com', 'b@example.com']);
      expect(await send('post')).toMatchObject({ state: 'sending', recipients: 2, sent: 0, waiting: 2, failed: 0, skipped: 0, startedAt: 2000 });
    });

    it('leases claimed messages: nobody else gets them until the lease ends; sent ones never come back', async () => {
      await store.newsletter.recordBaseline([], 500);
      await confirmed('a@example.com');
      await confirmed('b@example.com');
      await store.newsletter.startSend({ slug: 'post', mail: '{}', now: 2000 });
      const first = await claim('post', 3000, 1);
      expect(first).toHaveLength(1);
      const second = await claim('post', 3000, 5);
      expect(second.map((delivery) => delivery.email)).toEqual(['a@example.com', 'b@example.com'].filter((email) => email !== first[0]?.email));
      expect(await claim('post', 3000 + 59_999)).toEqual([]);
      expect(await store.newsletter.markSent('post', [held(first[0])], 4000)).toEqual([]);
      expect(await store.newsletter.markSent('post', [held(first[0])], 4001)).toEqual([first[0]?.email]);
      const again = await claim('post', 3000 + 60_000);
      expect(again.map((delivery) => delivery.email)).toEqual(second.map((delivery) => delivery.email));
      expect(await store.newsletter.finish('post', 70_000)).toBeUndefined();
      await store.newsletter.markSent('post', [held(again[0])], 70_000);
      expect(await store.newsletter.finish('post', 70_001)).toMatchObject({
        slug: 'post',
        state: 'sent',
        recipients: 2,
        sent: 2,
        waiting: 0,
        finishedAt: 70_001,
      });
      expect(await store.newsletter.finish('post', 70_002)).toBeUndefined();
      expect(await store.newsletter.activeSends()).toEqual([]);
    });

    it('settles several sent messages in one write, each counted once', async () => {
      await store.newsletter.recordBaseline([], 500);
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await confirmed(email);
      await store.newsletter.startSend({ slug: 'post', mail: '{}', now: 2000 });
      const claimed = await claim('post', 3000);
      const of = (email: string) => held(claimed.find((delivery) => delivery.email === email));
      expect(await store.newsletter.markSent('post', [of('a@example.com'), of('b@example.com')], 4000)).toEqual([]);
      expect(await store.newsletter.markSent('post', [of('b@example.com'), of('c@example.com')], 4001)).toEqual(['b@example.com']);
      expect(await send('post')).toMatchObject({ sent: 3, waiting: 0 });
      expect(await store.newsletter.finish('post', 5000)).toMatchObject({ sent: 3, recipients: 3 });
    });

    it('records each message’s unsubscribe token, and skips a recipient who unsubscribed before their mail left', async () => {
      await store.newsletter.recordBaseline([], 500);
      await confirmed('a@example.com');
      await confirmed('b@example.com');
      await store.newsletter.startSend({ slug: 'post', mail: '{}', now: 2000 });
      await store.subscribers.unsubscribe('u-b@example.com', 2500);
      const claimed = await claim('post', 3000);
      expect(claimed).toEqual([
        {
          slug: 'post',
          email: 'a@example.com',
          attempts: 0,
          unsubscribeTokenHash: expect.stringMatching(/^t-post-/),
          claim: expect.stringMatching(/^sender-a\//),
        },
      ]);
      expect(await store.subscribers.unsubscribe(claimed[0]?.unsubscribeTokenHash ?? '', 4000)).toMatchObject({
        email: 'a@example.com',
        status: 'unsubscribed',
      });
      expect(await send('post')).toMatchObject({ skipped: 1, waiting: 1 });
    });

    it('has a claimed message sent only while it waits and its address is confirmed: an unsubscribe after the claim skips it', async () => {
      await store.newsletter.recordBaseline([], 500);
      await confirmed('a@example.com');
      await confirmed('b@example.com');
      await store.newsletter.startSend({ slug: 'post', mail: '{}', now: 2000 });
      const claimed = await claim('post', 3000);
      expect(claimed).toHaveLength(2);
      const wanted = (email: string, now = 3500) => store.newsletter.stillWanted({ slug: 'post', email, claim: claimed[0]?.claim ?? '', now, leaseMs: 60_000 });
      await store.subscribers.unsubscribe('u-b@example.com', 3500);
      expect(await wanted('a@example.com')).toBe(true);
      expect(await wanted('b@example.com')).toBe(false);
      expect(await send('post')).toMatchObject({ waiting: 1, skipped: 1 });
      // The look before sending started a.'s lease again at 3500: it is nobody else's until 63,500.
      expect(await claim('post', 3000 + 60_000)).toEqual([]);
      const [again] = await claim('post', 3500 + 60_000);
      expect(again).toMatchObject({ email: 'a@example.com' });
      // The first claim lost it: its look before sending says no, and marks nothing.
      expect(await wanted('a@example.com', 63_600)).toBe(false);
      expect(await store.newsletter.markSent('post', [held(again)], 64_000)).toEqual([]);
      expect(await wanted('a@example.com', 64_000)).toBe(false);
      expect(await wanted('b@example.com', 64_000)).toBe(false);
      expect(await store.newsletter.finish('post', 5000)).toMatchObject({ recipients: 2, sent: 1, skipped: 1, waiting: 0 });
    });

    it('retries later with the attempts counted; a second permanent rejection suspends the address from later sends', async () => {
      await store.newsletter.recordBaseline([], 500);
      await confirmed('a@example.com');
      await confirmed('bad@example.com');
      await store.newsletter.startSend({ slug: 'one', mail: '{}', now: 2000 });
      const [firstClaim] = await claim('one', 3000);
      const claimOne = firstClaim?.claim ?? '';
      await store.newsletter.retryLater({ slug: 'one', email: 'a@example.com', claim: claimOne, attempts: 1, nextAttemptAt: 10_000, error: '451 try later' });
      expect(
        await store.newsletter.markFailed({
          slug: 'one',
          email: 'bad@example.com',
          claim: claimOne,
          attempts: 1,
          now: 3100,
          error: '550 no such user',
          permanent: true,
        }),
      ).toBe(1);
      expect(await claim('one', 9_999)).toEqual([]);
      const retried = await claim('one', 10_000);
      expect(retried).toMatchObject([{ email: 'a@example.com', attempts: 1 }]);
      await store.newsletter.markSent('one', [held(retried[0])], 10_001);
      expect(await store.newsletter.finish('one', 10_002)).toMatchObject({ sent: 1, failed: 1 });

      expect(await store.newsletter.retryFailed('one', 11_000)).toBe(1);
      expect(await store.newsletter.activeSends()).toEqual(['one']);
      const [bad] = await claim('one', 11_000);
      expect(bad).toMatchObject({ email: 'bad@example.com' });
      expect(
        await store.newsletter.markFailed({
          slug: 'one',
          email: 'bad@example.com',
          claim: bad?.claim ?? '',
          attempts: 1,
          now: 11_100,
          error: '550 no such user',
          permanent: true,
        }),
      ).toBe(2);
      expect(await store.newsletter.finish('one', 11_200)).toMatchObject({ state: 'sent', sent: 1, failed: 1 });
      expect(await store.newsletter.rejections()).toEqual([{ email: 'bad@example.com', count: 2, lastError: '550 no such user', at: 11_100, suspended: true }]);
      expect(await store.newsletter.retryFailed('one', 12_000)).toBe(0);
      expect(await store.newsletter.startSend({ slug: 'two', mail: '{}', now: 13_000 })).toEqual({ started: true, recipients: 1 });
    });
    it('renews the lease only for the claim that holds a message; a lapsed claim another sender took renews, settles and fails nothing', async () => {
      await store.newsletter.recordBaseline([], 500);
      await confirmed('a@example.com');
      await store.newsletter.startSend({ slug: 'post', mail: '{}', now: 2000 });
      const [first] = await claim('post', 3000, 1, 1000, 'sender-a');
      const renew = (delivery: NewsletterDelivery | undefined, now: number) =>
        store.newsletter.renew({ slug: 'post', claim: delivery?.claim ?? '', emails: ['a@example.com', 'nobody@example.com'], now, leaseMs: 1000 });
      // The heartbeat keeps the message while it is on the wire: past its first lease, nobody else gets it.
      expect(await renew(first, 3900)).toEqual(['a@example.com']);
      expect(await claim('post', 4500, 1, 1000, 'sender-b')).toEqual([]);
      // Without a beat the lease lapses and another sender claims it.
      const [taken] = await claim('post', 4900, 1, 1000, 'sender-b');
      expect(taken).toMatchObject({ email: 'a@example.com' });
      expect(taken?.claim).not.toBe(first?.claim);
      expect(await renew(first, 4950)).toEqual([]);
      expect(await store.newsletter.stillWanted({ slug: 'post', email: 'a@example.com', claim: first?.claim ?? '', now: 4950, leaseMs: 1000 })).toBe(false);
      expect(await store.newsletter.markSent('post', [held(first)], 4960)).toEqual(['a@example.com']);
      await store.newsletter.retryLater({ slug: 'post', email: 'a@example.com', claim: first?.claim ?? '', attempts: 1, nextAttemptAt: 4960, error: 'x' });
      expect(
        await store.newsletter.markFailed({
          slug: 'post',
          email: 'a@example.com',
          claim: first?.claim ?? '',
          attempts: 1,
          now: 4960,
          error: 'x',
          permanent: true,
        }),
      ).toBe(0);
      await store.newsletter.release({ slug: 'post', claim: first?.claim ?? '', emails: ['a@example.com'], now: 4960 });
      // None of it moved the message: it waits under the second claim (until 5900), unsent and unfailed.
      expect(await claim('post', 5899, 1, 1000, 'sender-c')).toEqual([]);
      expect(await send('post')).toMatchObject({ sent: 0, failed: 0, waiting: 1 });
      expect(await store.newsletter.rejections()).toEqual([]);
      expect(await renew(taken, 5000)).toEqual(['a@example.com']);
      expect(await store.newsletter.markSent('post', [held(taken)], 5100)).toEqual([]);
      expect(await send('post')).toMatchObject({ sent: 1, waiting: 0 });
      expect(await renew(taken, 5200)).toEqual([]);
    });

    it('gives back the messages a stopping sender did not start: due at once for another sender, sent ones left alone', async () => {
      await store.newsletter.recordBaseline([], 500);
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await confirmed(email);
      await store.newsletter.startSend({ slug: 'post', mail: '{}', now: 2000 });
      const claimed = await claim('post', 3000, 3, 60_000, 'sender-a');
      const [sent, ...unstarted] = claimed;
      await store.newsletter.markSent('post', [held(sent)], 3100);
      await store.newsletter.release({ slug: 'post', claim: sent?.claim ?? '', emails: claimed.map((delivery) => delivery.email), now: 3200 });
      const again = await claim('post', 3200, 10, 60_000, 'sender-b');
      expect(again.map((delivery) => delivery.email).sort()).toEqual(unstarted.map((delivery) => delivery.email).sort());
      expect(again.map((delivery) => delivery.attempts)).toEqual([0, 0]);
      // The old claim gives nothing back any more: the new one holds them.
      await store.newsletter.release({ slug: 'post', claim: sent?.claim ?? '', emails: claimed.map((delivery) => delivery.email), now: 3300 });
      expect(await claim('post', 3300, 10, 60_000, 'sender-c')).toEqual([]);
      expect(await send('post')).toMatchObject({ sent: 1, waiting: 2 });
    });
  });

  describe('bounces', () => {
    const soft = { limit: 3, windowMs: 10_000 };
    const confirmedReader = async (email: string) => {
      await store.subscribers.subscribe({
        email,
        confirmTokenHash: `c-${email}`,
        unsubscribeTokenHash: `u-${email}`,
        now: 1000,
        resend: CONFIRMATION_RESEND,
        mail: mail('confirm'),
      });
      await store.subscribers.confirm(`c-${email}`, 1000, 0);
    };
    const record = (tokenHash: string, kind: 'hard' | 'soft' | 'complaint', now: number, reportId = `${tokenHash}-${now}`) =>
      store.bounces.record({ tokenHash, reportId, kind, detail: `${kind} detail`, now, soft });
    const recipients = async (slug: string) => (await store.newsletter.startSend({ slug, mail: '{}', now: 9000 })).recipients;

    it('a hard bounce suspends the address at once: the next send leaves it out, and status lists it with the reason', async () => {
      await confirmedReader('gone@example.com');
      await confirmedReader('kept@example.com');
      await store.bounces.issue([{ tokenHash: 'b1', email: 'gone@example.com', slug: 'first' }], 1000);
      expect(await record('b1', 'hard', 2000)).toEqual({ matched: true, email: 'gone@example.com', slug: 'first', action: 'suspended' });
      expect(await recipients('second')).toBe(1);
      expect(await store.newsletter.rejections()).toEqual([
        { email: 'gone@example.com', count: 2, lastError: 'hard bounce: hard detail', at: 2000, suspended: true },
      ]);
      expect(await store.bounces.sendCounts()).toEqual({ first: { hard: 1, soft: 0, complaints: 0 } });
      expect(await store.bounces.lastByAddress()).toEqual([{ email: 'gone@example.com', kind: 'hard', detail: 'hard detail', at: 2000 }]);
    });

    it('soft bounces suspend the address only once the limit falls within the window', async () => {
      await confirmedReader('full@example.com');
      await store.bounces.issue(
        ['s1', 's2', 's3', 's4'].map((tokenHash) => ({ tokenHash, email: 'full@example.com', slug: 'post' })),
        1000,
      );
      expect(await record('s1', 'soft', 1000)).toMatchObject({ action: 'counted' });
      expect(await record('s2', 'soft', 12_000)).toMatchObject({ action: 'counted' });
      expect(await record('s3', 'soft', 13_000)).toMatchObject({ action: 'counted' });
      expect(await recipients('next')).toBe(1);
      expect(await record('s4', 'soft', 14_000)).toMatchObject({ action: 'suspended' });
      expect(await recipients('after')).toBe(0);
      expect(await store.bounces.sendCounts()).toEqual({ post: { hard: 0, soft: 4, complaints: 0 } });
    });

    it('a complaint unsubscribes the address', async () => {
      await confirmedReader('annoyed@example.com');
      await store.bounces.issue([{ tokenHash: 'c1', email: 'annoyed@example.com', slug: 'post' }], 1000);
      expect(await record('c1', 'complaint', 2000)).toMatchObject({ matched: true, action: 'unsubscribed' });
      expect(await store.subscribers.list()).toEqual([expect.objectContaining({ email: 'annoyed@example.com', status: 'unsubscribed' })]);
      expect(await store.bounces.sendCounts()).toEqual({ post: { hard: 0, soft: 0, complaints: 1 } });
    });

    it(`forgets a bounce token ${BOUNCE_TOKEN_DAYS} days after it was issued (SQLite: as newer ones are issued; Redis: it expires)`, async () => {
      await confirmedReader('late@example.com');
      if (name === 'sqlite') {
        await store.bounces.issue([{ tokenHash: 'old', email: 'late@example.com', slug: 'post' }], 1000);
        await store.bounces.issue([{ tokenHash: 'kept', email: 'late@example.com', slug: 'post' }], 2000);
        await store.bounces.issue([{ tokenHash: 'new', email: 'late@example.com', slug: 'later' }], 1001 + BOUNCE_TOKEN_MS);
        expect(await record('old', 'hard', 2 * BOUNCE_TOKEN_MS)).toEqual({ matched: false });
        expect(await record('kept', 'soft', 2 * BOUNCE_TOKEN_MS)).toMatchObject({ matched: true, action: 'counted' });
      } else {
        await store.bounces.issue([{ tokenHash: 'old', email: 'late@example.com', slug: 'post' }], Date.now());
        const client = createClient({ url: testRedisUrl(name === 'redis' ? 2 : 12) });
        await client.connect();
        try {
          const ttl = await client.pTTL('lectern:store:bounce-token:old');
          expect(ttl).toBeGreaterThan(BOUNCE_TOKEN_MS - 60_000);
          expect(ttl).toBeLessThanOrEqual(BOUNCE_TOKEN_MS);
        } finally {
          await client.quit();
        }
      }
    });

    it('an unknown token matches nothing and changes nothing; the same report twice acts once', async () => {
      await confirmedReader('reader@example.com');
      expect(await record('nobody', 'hard', 2000)).toEqual({ matched: false });
      await store.bounces.issue([{ tokenHash: 'd1', email: 'reader@example.com', slug: 'post' }], 1000);
      expect(await record('d1', 'soft', 2000, 'report-1')).toMatchObject({ action: 'counted' });
      expect(await record('d1', 'soft', 2001, 'report-1')).toMatchObject({ action: 'duplicate' });
      expect(await store.bounces.sendCounts()).toEqual({ post: { hard: 0, soft: 1, complaints: 0 } });
      expect(await store.newsletter.rejections()).toEqual([]);
    });

    it('a form mail refused for good is never claimed again, and is purged with the sent mail', async () => {
      await store.support.save({ id: 'm1', name: 'A', email: 'a@example.com', subject: 's', message: 'm', createdAt: 10 }, [mail('refused')]);
      const [entry] = await store.outbox.claimDue({ now: 10, limit: 10, leaseMs: 100, claim: 'a/1' });
      expect(entry?.createdAt).toBe(10);
      await store.outbox.markFailed({ id: entry?.id ?? '', claim: 'a/1', attempts: 1, now: 20, error: '550 no such user' });
      expect(await store.outbox.claimDue({ now: 100_000, limit: 10, leaseMs: 100, claim: 'a/2' })).toEqual([]);
      expect(await store.outbox.purgeSent(21)).toBe(1);
    });
  });

  describe('settings', () => {
    it('keeps settings', async () => {
      expect(await store.settings.get('k')).toBeUndefined();
      await store.settings.set('k', 'v1');
      await store.settings.set('k', 'v2');
      expect(await store.settings.get('k')).toBe('v2');
    });

    it('a claim succeeds once, for one of two callers at once, and leaves the first value', async () => {
      const claims = await Promise.all([store.settings.claim('once', 'first'), store.settings.claim('once', 'second')]);
      expect(claims.toSorted()).toEqual([false, true]);
      expect(await store.settings.get('once')).toBe(claims[0] ? 'first' : 'second');
      expect(await store.settings.claim('once', 'third')).toBe(false);
      await store.settings.set('taken', 'v');
      expect(await store.settings.claim('taken', 'w')).toBe(false);
      expect(await store.settings.get('taken')).toBe('v');
    });
  });
});

describe('the sqlite store file', () => {
  it('migrates once and keeps its data across reopening', async () => {
    const file = path.join(tmp, 'reopen.db');
    const first = openSqliteStore(file);
    await first.support.save({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'M', createdAt: 5 }, []);
    await first.close();
    const second = openSqliteStore(file);
    const stored = sqliteStoredData(file);
    expect((await stored.supportMessages()).map((message) => message.id)).toEqual(['m1']);
    await stored.close();
    await second.close();
  });

  it('upgrades a store made before cancellations had two steps, keeping its bookings and holds', async () => {
    const file = path.join(tmp, 'upgrade-bookings.db');
    const old = new Database(file);
    old.exec(`${MIGRATIONS[0]};${MIGRATIONS[1]}`);
    old.pragma('user_version = 2');
    old
      .prepare(`INSERT INTO bookings VALUES ('bk_old', 'hash', 'course', 's1', 2, 'b@example.com', NULL, 'pi_old', 98000, 'EUR', 'confirmed', 1000, NULL)`)
      .run();
    old.prepare(`INSERT INTO holds VALUES ('h_old', 'course', 's1', 3, 5000)`).run();
    old.prepare(`INSERT INTO webhook_events VALUES ('evt_old', 1000)`).run();
    old.close();
    const store = openSqliteStore(file);
    expect(await store.bookings.seatsTaken('course', 's1', 1_000)).toBe(5);
    expect(
      await store.bookings.recordPayment({
        eventId: 'evt_old',
        order: { id: 'cs', product: 'course', kind: 'training', amount: 1, currency: 'EUR', email: 'b@example.com', createdAt: 1 },
        mails: [],
      }),
    ).toBe('duplicate');
    expect(await store.bookings.beginCancellation('bk_old')).toMatchObject({ status: 'cancelling', seats: 2 });
    expect(await store.bookings.cancel('bk_old', 2_000, [])).toMatchObject({ status: 'cancelled' });
    expect(await store.bookings.seatsTaken('course', 's1', 1_000)).toBe(3);
    await store.close();
  });
});

describe('stores written before tokens were hashed and sent mail purged', () => {
  const raw = 'raw-unsubscribe-token-from-an-old-mail';

  it('sqlite: the upgrade keeps old unsubscribe links working, keeps no raw token, and dates pending confirmations', async () => {
    const file = path.join(tmp, 'upgrade.db');
    const old = new Database(file);
    for (const migration of MIGRATIONS.slice(0, 2)) old.exec(migration);
    old.pragma('user_version = 2');
    old
      .prepare(
        `INSERT INTO subscribers (email, status, confirm_token_hash, unsubscribe_token, created_at, updated_at) VALUES ('old@example.com', 'pending', 'c-old', ?, 10, 20)`,
      )
      .run(raw);
    old.prepare(`INSERT INTO outbox (id, mail, next_attempt_at, sent_at, created_at) VALUES ('sent-1', '{}', 10, 30, 10)`).run();
    old.close();

    const store = openSqliteStore(file);
    expect(await store.subscribers.confirmationState('c-old', 20)).toBe('pending');
    expect(await store.subscribers.confirmationState('c-old', 21)).toBe('expired');
    expect(await store.outbox.purgeSent(31)).toBe(1);
    expect(await store.subscribers.unsubscribe(hashToken(raw), 40)).toMatchObject({ email: 'old@example.com', status: 'unsubscribed' });
    await store.close();
    const db = new Database(file, { readonly: true });
    const everything = db
      .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table'`)
      .all()
      .flatMap(({ name }) => db.prepare(`SELECT * FROM "${name}"`).all())
      .map((row) => JSON.stringify(row))
      .join('\n');
    db.close();
    expect(everything).not.toContain(raw);
  });

  it('redis: the upgrade keeps old unsubscribe links working, keeps no raw token, and purges old sent mail', async () => {
    const url = testRedisUrl(2);
    await flushRedis(url);
    const client = createClient({ url });
    await client.connect();
    const P = 'lectern:store:';
    await client.hSet(`${P}subscriber:old@example.com`, {
      email: 'old@example.com',
      status: 'confirmed',
      unsub: raw,
      created: '10',
      updated: '20',
      confirmed: '20',
    });
    await client.zAdd(`${P}subscribers`, { score: 10, value: 'old@example.com' });
    await client.set(`${P}unsubscribe-token:${raw}`, 'old@example.com');
    await client.hSet(`${P}mail:sent-1`, { mail: '{}', attempts: '0', created: '10', sent: '30' });

    const store = openRedisStore({ eval: (script, keys, args) => client.eval(script, { keys, arguments: args }) }, async () => undefined);
    expect(await store.outbox.purgeSent(31)).toBe(1);
    expect(await client.exists(`${P}mail:sent-1`)).toBe(0);
    expect(await store.subscribers.unsubscribe(hashToken(raw), 40)).toMatchObject({ email: 'old@example.com', status: 'unsubscribed' });
    const keys = await client.keys(`${P}*`);
    const values = await Promise.all(
      keys.map(async (key) =>
        (await client.type(key)) === 'hash' ? JSON.stringify(await client.hGetAll(key)) : (await client.type(key)) === 'string' ? await client.get(key) : '',
      ),
    );
    expect([...keys, ...values].join('\n')).not.toContain(raw);
    await client.quit();
  });
});
