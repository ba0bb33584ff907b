import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { openRedisStore } from '@/lib/services/store/redis';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import type { OutgoingMail, Store } from '@/lib/services/store/types';
import { flushRedis, testRedisUrl } from '../../support/redis';

const mail = (subject: string): OutgoingMail => ({ to: { address: 'reader@example.com' }, subject, text: 't', html: '<p>t</p>' });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-store-'));
let fileCounter = 0;

const backends: { name: string; open: () => Promise<Store> }[] = [
  { name: 'sqlite', open: async () => openSqliteStore(path.join(tmp, `store-${++fileCounter}.db`)) },
  {
    name: 'redis',
    open: async () => {
      await flushRedis(testRedisUrl(2));
      const client = createClient({ url: testRedisUrl(2) });
      await client.connect();
      return openRedisStore({ eval: (script, keys, args) => client.eval(script, { keys, arguments: args }) }, async () => void (await client.quit()));
    },
  },
];

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe.each(backends)('the $name store', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    await store?.close();
    store = await open();
  });
  afterAll(async () => store?.close());

  const subscribe = (email: string, confirm: string, unsubscribe: string, seen: unknown[] = []) =>
    store.subscribe({
      email,
      name: 'Reader',
      confirmTokenHash: confirm,
      unsubscribeToken: unsubscribe,
      now: 1000,
      mail: (previous, token) => {
        seen.push([previous, token]);
        return previous === 'confirmed' ? undefined : mail(`confirm ${confirm}`);
      },
    });

  it('answers a ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });

  it('stores a new subscriber as pending and queues the confirmation mail with it', async () => {
    const seen: unknown[] = [];
    await subscribe('a@example.com', 'c1', 'u1', seen);
    expect(seen).toEqual([[undefined, 'u1']]);
    expect(await store.subscribers()).toEqual([{ email: 'a@example.com', name: 'Reader', status: 'pending', unsubscribeToken: 'u1', createdAt: 1000 }]);
    expect(await store.pendingMailCount()).toBe(1);
  });

  it('gives a pending address a new confirmation token but keeps its unsubscribe token', async () => {
    await subscribe('a@example.com', 'c1', 'u1');
    const seen: unknown[] = [];
    await subscribe('a@example.com', 'c2', 'u2', seen);
    expect(seen).toEqual([['pending', 'u1']]);
    expect(await store.confirmSubscriber('c1', 2000, () => undefined)).toBeUndefined();
    expect(await store.confirmSubscriber('c2', 2000, () => undefined)).toMatchObject({ email: 'a@example.com', status: 'confirmed', confirmedAt: 2000 });
  });

  it('confirms once; a used or unknown token confirms nothing', async () => {
    await subscribe('a@example.com', 'c1', 'u1');
    const welcome: string[] = [];
    const confirmed = await store.confirmSubscriber('c1', 2000, (subscriber) => (welcome.push(subscriber.email), mail('welcome')));
    expect(confirmed?.status).toBe('confirmed');
    expect(welcome).toEqual(['a@example.com']);
    expect(await store.pendingMailCount()).toBe(2);
    expect(await store.confirmSubscriber('c1', 3000, () => undefined)).toBeUndefined();
    expect(await store.confirmSubscriber('nope', 3000, () => undefined)).toBeUndefined();
  });

  it('leaves a confirmed subscriber alone when the address subscribes again', async () => {
    await subscribe('a@example.com', 'c1', 'u1');
    await store.confirmSubscriber('c1', 2000, () => undefined);
    const seen: unknown[] = [];
    await subscribe('a@example.com', 'c9', 'u9', seen);
    expect(seen).toEqual([['confirmed', 'u1']]);
    expect((await store.subscriber('a@example.com'))?.status).toBe('confirmed');
    expect(await store.pendingMailCount()).toBe(1);
  });

  it('unsubscribes by token, and a later subscription starts pending again', async () => {
    await subscribe('a@example.com', 'c1', 'u1');
    await store.confirmSubscriber('c1', 2000, () => undefined);
    expect(await store.unsubscribe('u1', 3000)).toMatchObject({ email: 'a@example.com', status: 'unsubscribed' });
    expect(await store.unsubscribe('wrong', 3000)).toBeUndefined();
    await subscribe('a@example.com', 'c3', 'u3');
    expect((await store.subscriber('a@example.com'))?.status).toBe('pending');
  });

  it('stores support messages with their mail in one write', async () => {
    await store.saveSupportMessage({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'Line 1\nLine 2', createdAt: 5 }, [mail('owner'), mail('receipt')]);
    expect(await store.supportMessages()).toEqual([{ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'Line 1\nLine 2', createdAt: 5 }]);
    expect(await store.pendingMailCount()).toBe(2);
  });

  it('leases due mail, hands it back after the lease, and settles it once sent', async () => {
    await store.saveSupportMessage({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'M', createdAt: 5 }, [mail('owner')]);
    const [claimed] = await store.claimDueMail(10, 10, 100);
    expect(claimed?.mail.subject).toBe('owner');
    expect(await store.claimDueMail(50, 10, 100)).toEqual([]);
    const [again] = await store.claimDueMail(111, 10, 100);
    expect(again?.id).toBe(claimed?.id);
    await store.retryMailLater(again!.id, 1, 500, 'connection refused');
    expect(await store.claimDueMail(499, 10, 100)).toEqual([]);
    const [retried] = await store.claimDueMail(500, 10, 100);
    expect(retried).toMatchObject({ id: claimed?.id, attempts: 1 });
    await store.markMailSent(retried!.id, 600);
    expect(await store.pendingMailCount()).toBe(0);
    expect(await store.claimDueMail(10_000, 10, 100)).toEqual([]);
  });
});

describe.each(backends)('the $name store for payments', ({ open }) => {
  let store: Store;
  beforeEach(async () => {
    await store?.close();
    store = await open();
  });
  afterAll(async () => store?.close());

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

  it('holds seats only while bookings and unexpired holds leave room', async () => {
    expect(await store.holdSeats({ id: 'h1', product: 'course', session: 's1', seats: 6, expiresAt: 5_000 }, 10, 1_000)).toBe(true);
    expect(await store.holdSeats({ id: 'h2', product: 'course', session: 's1', seats: 5, expiresAt: 5_000 }, 10, 1_000)).toBe(false);
    expect(await store.holdSeats({ id: 'h3', product: 'course', session: 's2', seats: 5, expiresAt: 5_000 }, 10, 1_000)).toBe(true);
    expect(await store.seatsTaken('course', 's1', 1_000)).toBe(6);
    // The hold of h1 has expired by 5_000.
    expect(await store.holdSeats({ id: 'h4', product: 'course', session: 's1', seats: 10, expiresAt: 9_000 }, 10, 5_000)).toBe(true);
    await store.releaseHold('h4');
    expect(await store.seatsTaken('course', 's1', 5_000)).toBe(0);
  });

  it('records a payment once per event, turning its hold into a booking', async () => {
    await store.holdSeats({ id: 'h1', product: 'course', session: 's1', seats: 2, expiresAt: 5_000 }, 10, 1_000);
    expect(await store.recordPayment({ eventId: 'evt_1', order: order('cs_1'), booking: booking('bk_1', 2), holdId: 'h1', mails: [mail('receipt')] })).toBe('recorded');
    expect(await store.recordPayment({ eventId: 'evt_1', order: order('cs_1'), booking: booking('bk_2', 2), holdId: 'h1', mails: [mail('receipt')] })).toBe('duplicate');
    expect(await store.seatsTaken('course', 's1', 1_000)).toBe(2);
    expect(await store.seatsTaken('course', 's1', 10_000)).toBe(2);
    expect((await store.orders()).map((entry) => entry.id)).toEqual(['cs_1']);
    expect(await store.booking('bk_1')).toEqual(booking('bk_1', 2));
    expect(await store.booking('bk_2')).toBeUndefined();
    expect(await store.pendingMailCount()).toBe(1);
  });

  it('cancels a confirmed booking once, freeing its seats', async () => {
    await store.recordPayment({ eventId: 'evt_1', order: order('cs_1'), booking: booking('bk_1', 3), mails: [] });
    expect(await store.seatsTaken('course', 's1', 1_000)).toBe(3);
    expect(await store.cancelBooking('bk_1', 2_000, [mail('cancelled')])).toMatchObject({ id: 'bk_1', status: 'cancelled', cancelledAt: 2_000 });
    expect(await store.cancelBooking('bk_1', 3_000, [mail('cancelled')])).toBeUndefined();
    expect(await store.cancelBooking('bk_none', 3_000, [])).toBeUndefined();
    expect(await store.seatsTaken('course', 's1', 3_000)).toBe(0);
    expect(await store.pendingMailCount()).toBe(1);
  });

  it('keeps settings', async () => {
    expect(await store.setting('k')).toBeUndefined();
    await store.setSetting('k', 'v1');
    await store.setSetting('k', 'v2');
    expect(await store.setting('k')).toBe('v2');
  });
});

describe('the sqlite store file', () => {
  it('migrates once and keeps its data across reopening', async () => {
    const file = path.join(tmp, 'reopen.db');
    const first = openSqliteStore(file);
    await first.saveSupportMessage({ id: 'm1', name: 'R', email: 'r@example.com', subject: 'S', message: 'M', createdAt: 5 }, []);
    await first.close();
    const second = openSqliteStore(file);
    expect((await second.supportMessages()).map((message) => message.id)).toEqual(['m1']);
    await second.close();
  });
});
