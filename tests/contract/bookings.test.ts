import path from 'node:path';
import ICAL from 'ical.js';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { freshAddress, postForm, postJson, request } from '../support/client';
import { startRecorder } from '../support/recorder';
import { startSmtp, type ReceivedMail } from '../support/smtp';
import { freePort, startSite, type RunningSite } from '../support/site';
import { flushRedis, testRedisUrl } from '../support/redis';
import { until } from '../support/until';
import { startUpstashStandIn } from '../support/upstash';

const WEBHOOK_SECRET = 'whsec_bookings_secret';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const JOINING = 'https://meet.example.com/fixture-joining-room';
const stripe = new Stripe('sk_test_local');
// The fixture training's sessions (tests/fixtures/content/products/fixture-training.md), in UTC.
const MEETINGS = {
  spring: [
    ['2099-03-01T08:00:00.000Z', '2099-03-01T12:00:00.000Z'],
    ['2099-03-02T08:00:00.000Z', '2099-03-02T12:00:00.000Z'],
  ],
  autumn: [['2099-09-01T07:00:00.000Z', '2099-09-01T11:00:00.000Z']],
  winter: [['2099-12-01T08:00:00.000Z', '2099-12-01T12:00:00.000Z']],
};
const SPRING_START = Date.parse(MEETINGS.spring[0]![0]!);
/** How far ahead of a restarted server's clock a reminder is due when it starts. */
const AHEAD_MS = 5_000;

let stripeApi: Awaited<ReturnType<typeof startRecorder>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let running: RunningSite;

const env = (extra: Record<string, string> = {}) => ({
  STRIPE_SECRET_KEY: 'sk_test_local',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_API_URL: stripeApi.url,
  SMTP_URL: smtp.url,
  MAIL_POLL_MS: '200',
  BOOKING_REMINDER_CHECK_MS: '200',
  ...extra,
});
const site = async (extraEnv: Record<string, string>) =>
  startSite({ contentDir: inject('contentDir'), distDir: inject('distDir'), siteUrl: inject('siteUrl'), port: await freePort(), extraEnv });

beforeAll(async () => {
  stripeApi = await startRecorder(() => ({ status: 404, body: { error: { type: 'invalid_request_error', message: 'unknown' } } }));
  smtp = await startSmtp();
  running = await startSite({
    contentDir: inject('contentDir'),
    distDir: inject('distDir'),
    siteUrl: inject('siteUrl'),
    port: await freePort(),
    extraEnv: env(),
  });
});
afterAll(async () => {
  await running?.stop();
  await Promise.all([stripeApi?.close(), smtp?.close()]);
});

function signed(baseUrl: string, event: object) {
  const payload = JSON.stringify(event);
  return request(baseUrl, '/api/payments/webhook', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
    body: payload,
  });
}

type Booked = { booking: string; token: string; mail: ReceivedMail; buyer: string };

/** Books seats in a session of the fixture training with a signed checkout.session.completed event; the booking mail, its id and token. */
async function book(baseUrl: string, name: string, session: string, seats = 1): Promise<Booked> {
  const buyer = `${name}@example.com`;
  const event = {
    id: `evt_${name}`,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: `cs_${name}`,
        object: 'checkout.session',
        payment_status: 'paid',
        amount_total: 49000 * seats,
        currency: 'eur',
        customer_details: { email: buyer, name: 'Buyer' },
        payment_intent: `pi_${name}`,
        metadata: { product: 'fixture-training', kind: 'training', session, seats: String(seats) },
      },
    },
  };
  expect((await signed(baseUrl, event)).json()).toMatchObject({ outcome: 'recorded' });
  const mail = await smtp.waitFor((message) => message.envelopeTo.includes(buyer) && message.subject?.startsWith('Your booking') === true);
  const url = new URL(/https?:\/\/\S+\/booking\/cancel\?booking=[\w-]+&token=[\w-]+/.exec(mail.text ?? '')![0]);
  return { booking: url.searchParams.get('booking')!, token: url.searchParams.get('token')!, mail, buyer };
}

/** A mail's calendar file, read back by ical.js: each event's UID, SEQUENCE, start and end (UTC), and the calendar's METHOD. */
function calendarOf(mail: ReceivedMail) {
  const files = mail.attachments.filter((file) => file.mimeType === 'text/calendar');
  expect(files).toHaveLength(1);
  const file = files[0]!;
  const text = typeof file.content === 'string' ? file.content : new TextDecoder().decode(file.content);
  const calendar = new ICAL.Component(ICAL.parse(text));
  return {
    filename: file.filename,
    method: calendar.getFirstPropertyValue('method'),
    events: calendar.getAllSubcomponents('vevent').map((component) => {
      const event = new ICAL.Event(component);
      return {
        uid: event.uid,
        sequence: event.sequence,
        start: event.startDate.toJSDate().toISOString(),
        end: event.endDate.toJSDate().toISOString(),
        location: event.location,
        description: event.description,
        status: component.getFirstPropertyValue('status'),
      };
    }),
  };
}

const mailsTo = (buyer: string, subject: string) => smtp.messages.filter((mail) => mail.envelopeTo.includes(buyer) && mail.subject?.startsWith(subject));
const openStore = () => openSqliteStore(path.join(running.dataDir, 'lectern.db'));
const move = (booked: Booked, session: string) =>
  postJson(running.baseUrl, '/api/booking/move', { booking: booked.booking, token: booked.token, session }, { from: freshAddress() });

describe('the booking mail', () => {
  it("states every meeting in the site's zone in words, gives the joining details, and carries an .ics a real parser reads back to the session's meetings", async () => {
    const booked = await book(running.baseUrl, 'calendar-buyer', 'spring', 2);
    expect(booked.mail.text).toContain(
      'Fixture Training (2 seats), in 2 meetings:\n- Sunday 1 March 2099, 03:00–07:00 EST\n- Monday 2 March 2099, 03:00–07:00 EST',
    );
    // Names and dates, not the ids the store keeps (they stay in the link only).
    expect(booked.mail.text?.replace(/https?:\/\/\S+/g, '')).not.toMatch(/bk_|cs_|\bspring\b/);
    expect(booked.mail.text).toContain(`How to join: ${JOINING}`);
    expect(booked.mail.text).toContain('Free cancellation with a full refund until Sunday 22 February 2099, 03:00 EST.');
    expect(booked.mail.text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    const calendar = calendarOf(booked.mail);
    expect(calendar.filename).toBe('fixture-training.ics');
    expect(calendar.method).toBe('PUBLISH');
    expect(calendar.events).toEqual(
      MEETINGS.spring.map(([start, end], index) => ({
        uid: `${booked.booking}-${index + 1}@${new URL(inject('siteUrl')).hostname}`,
        sequence: 0,
        start,
        end,
        location: JOINING,
        description: expect.stringMatching(
          new RegExp(
            `^Part ${index + 1} of 2 of Fixture Training, Sunday 1 March 2099 and Monday 2 March 2099\\.\\nHow to join: ${JOINING}\\nCancel or move your booking: `,
          ),
        ),
        status: 'CONFIRMED',
      })),
    );
    // The long link wraps on a narrow screen, and the button says what it does.
    expect(booked.mail.html).toContain('>Cancel or move my booking</a>');
    expect(booked.mail.html).toMatch(/<p style="[^"]*overflow-wrap:anywhere[^"]*">https?:\/\/[^<]+\/booking\/cancel\?booking=/);
  });

  it('never shows the joining details on a public page, feed or agent file', async () => {
    for (const url of ['/pricing', '/pricing.md', '/llms.txt', '/llms-full.txt', '/feed.json', '/atom.xml', '/sitemap.xml', '/openapi.json']) {
      const answer = await request(running.baseUrl, url);
      expect(answer.status, url).toBe(200);
      expect(answer.body, url).not.toContain('fixture-joining-room');
    }
    // Nor does the booking page of a link whose token is wrong.
    const booked = await book(running.baseUrl, 'page-buyer', 'spring');
    const wrong = await request(running.baseUrl, `/booking/cancel?booking=${booked.booking}&token=${'x'.repeat(32)}`, { headers: { Accept: 'text/html' } });
    expect(wrong.body).not.toContain('Monday 2 March 2099');
    const page = await request(running.baseUrl, `/booking/cancel?booking=${booked.booking}&token=${booked.token}`, { headers: { Accept: 'text/html' } });
    expect(page.body).toContain('Monday 2 March 2099, 03:00–07:00 EST');
    expect(page.body).toContain('action="/api/booking/move"');
    expect(page.body).toContain('Fixture Training, Sunday 1 March 2099 and Monday 2 March 2099, 1 seat:');
    expect(page.body).not.toContain('<code>spring</code>');
  });
});

describe('moving a seat', () => {
  it('takes the seats in the later session and frees them in the old one, and mails an .ics with the same UIDs and a higher SEQUENCE', async () => {
    const booked = await book(running.baseUrl, 'mover', 'spring', 2);
    const other = await book(running.baseUrl, 'mover-winter', 'spring');
    const store = openStore();
    try {
      const spring = await store.bookings.seatsTaken('fixture-training', 'spring', Date.now());
      const autumn = await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now());
      const answer = await move(booked, 'autumn');
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual({ status: 'moved', booking: booked.booking, from: 'spring', session: 'autumn', sequence: 1 });
      expect(await store.bookings.seatsTaken('fixture-training', 'spring', Date.now())).toBe(spring - 2);
      expect(await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now())).toBe(autumn + 2);
      // Two seats do not fit in winter's two beside another booking moved there: refused, nothing changed.
      expect((await move(other, 'winter')).status).toBe(200);
      const full = await move(booked, 'winter');
      expect(full.status).toBe(409);
      expect(full.json()).toMatchObject({
        detail: 'The session winter has 1 free seat, and this booking has 2. Your booking is unchanged; choose another session.',
      });
      expect(await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now())).toBe(autumn + 2);
    } finally {
      await store.close();
    }
    const moved = await smtp.waitFor((mail) => mail.envelopeTo.includes(booked.buyer) && mail.subject?.startsWith('Booking moved') === true);
    expect(moved.text).toContain(
      'has moved from the session of Sunday 1 March 2099 and Monday 2 March 2099 to Fixture Training (2 seats): Tuesday 1 September 2099, 03:00–07:00 EDT.',
    );
    expect(moved.text?.replace(/https?:\/\/\S+/g, '')).not.toMatch(/bk_|\bspring\b|\bautumn\b/);
    expect(moved.text).toContain(`How to join: ${JOINING}`);
    const before = calendarOf(booked.mail).events;
    const after = calendarOf(moved).events;
    expect(after).toEqual([
      {
        ...before[0]!,
        sequence: 1,
        start: MEETINGS.autumn[0]![0],
        end: MEETINGS.autumn[0]![1],
        description: expect.stringMatching(/^Fixture Training, Tuesday 1 September 2099\.\n/),
      },
    ]);
    // Not back to an earlier session; the same 404 for a wrong token as for no booking.
    const earlier = await move(booked, 'spring');
    expect(earlier.status).toBe(400);
    expect(earlier.json()).toMatchObject({ errors: [{ path: 'session', message: 'must be one of winter' }] });
    expect((await move({ ...booked, token: 'y'.repeat(32) }, 'winter')).status).toBe(404);
    expect((await move({ ...booked, booking: 'bk_unknown000000' }, 'winter')).status).toBe(404);
  });

  it('moves from the booking page with a form post, landing on a page that says so', async () => {
    const booked = await book(running.baseUrl, 'form-mover', 'spring');
    const answer = await postForm(
      running.baseUrl,
      '/api/booking/move',
      { booking: booked.booking, token: booked.token, session: 'autumn' },
      { from: freshAddress(), headers: { Origin: new URL(inject('siteUrl')).origin } },
    );
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/booking/moved');
    expect((await request(running.baseUrl, '/booking/moved', { headers: { Accept: 'text/html' } })).body).toContain('Your booking is moved');
  });

  it('gives the last seat to one of two moves racing for it: one 200, one 409 saying how many seats are left', async () => {
    // winter (2 seats) has one booking of one seat (moved there above): one seat left.
    const store = openStore();
    expect(await store.bookings.seatsTaken('fixture-training', 'winter', Date.now())).toBe(1);
    const first = await book(running.baseUrl, 'racer-one', 'spring');
    const second = await book(running.baseUrl, 'racer-two', 'spring');
    const answers = await Promise.all([move(first, 'winter'), move(second, 'winter')]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const lost = answers.find((answer) => answer.status === 409)!;
    expect(lost.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(lost.json()).toMatchObject({
      title: 'Conflict',
      status: 409,
      detail: 'The session winter has 0 free seats, and this booking has 1. Your booking is unchanged; choose another session.',
    });
    expect(await store.bookings.seatsTaken('fixture-training', 'winter', Date.now())).toBe(2);
    const [winner, loser] = answers[0]!.status === 200 ? [first, second] : [second, first];
    expect(await store.bookings.find(winner.booking)).toMatchObject({ session: 'winter', sequence: 1 });
    expect(await store.bookings.find(loser.booking)).toMatchObject({ session: 'spring', status: 'confirmed' });
    expect((await store.bookings.find(loser.booking))?.sequence).toBeUndefined();
    await store.close();
    await smtp.waitFor((mail) => mail.envelopeTo.includes(winner.buyer) && mail.subject?.startsWith('Booking moved') === true);
    expect(mailsTo(loser.buyer, 'Booking moved')).toHaveLength(0);
  });
});

describe('cancelling after a move', () => {
  it('keeps the free-cancellation deadline of the session first booked: a booking past it is refused a refund after a move too', async () => {
    const booked = await book(running.baseUrl, 'late-mover', 'spring');
    // A server on the same store whose clock is three days before spring: past its free cancellation (seven days before).
    const late = await site(env({ DATA_DIR: running.dataDir, LECTERN_CLOCK_OFFSET_MS: String(SPRING_START - 3 * DAY - Date.now()) }));
    try {
      const refunds = () => stripeApi.requests.filter((req) => req.path === '/v1/refunds').length;
      const before = refunds();
      const cancel = () =>
        postJson(late.baseUrl, '/api/booking/cancel', { booking: booked.booking, token: booked.token, confirm: 'yes' }, { from: freshAddress() });
      expect((await cancel()).status).toBe(409);
      const moved = await postJson(
        late.baseUrl,
        '/api/booking/move',
        { booking: booked.booking, token: booked.token, session: 'autumn' },
        { from: freshAddress() },
      );
      expect(moved.status).toBe(200);
      const after = await cancel();
      expect(after.status).toBe(409);
      expect(after.json()).toMatchObject({ detail: expect.stringContaining('Sunday 22 February 2099, 03:00 EST') });
      expect(refunds()).toBe(before);
      // The booking page offers no cancellation, only the move, and says until when it was free.
      const page = await request(late.baseUrl, `/booking/cancel?booking=${booked.booking}&token=${booked.token}`, { headers: { Accept: 'text/html' } });
      expect(page.body).toContain('Free cancellation ended Sunday 22 February 2099, 03:00 EST');
      expect(page.body).not.toContain('step=confirm');
      const store = openStore();
      try {
        expect(await store.bookings.find(booked.booking)).toMatchObject({ session: 'autumn', status: 'confirmed' });
      } finally {
        await store.close();
      }
    } finally {
      await late.stop();
    }
  });
});

describe('the reminder', () => {
  it('is sent once at its time (a server whose clock is just before it), and never again by a restarted server', async () => {
    // Booked now (spring is decades ahead): its reminder is due 48 hours before the first meeting.
    const booked = await book(running.baseUrl, 'reminded', 'spring');
    const remindAt = SPRING_START - 48 * HOUR;
    const read = async () => {
      const store = openStore();
      try {
        return await store.bookings.find(booked.booking);
      } finally {
        await store.close();
      }
    };
    expect(await read()).toMatchObject({ remindAt });
    // A server on the same store whose clock is a few seconds before that time; it books a witness whose
    // 24-hour reminder is due a day later.
    const first = await site(
      env({ DATA_DIR: running.dataDir, BOOKING_REMINDER_HOURS: '24', LECTERN_CLOCK_OFFSET_MS: String(remindAt - AHEAD_MS - Date.now()) }),
    );
    let witness: Booked;
    try {
      witness = await book(first.baseUrl, 'reminded-witness', 'spring');
      const reminder = await smtp.waitFor((mail) => mail.envelopeTo.includes(booked.buyer) && mail.subject?.startsWith('Starting') === true);
      expect((await read())?.remindedAt).toBeGreaterThan(0);
      expect(reminder.subject).toBe('Starting in 2 days: Fixture Training');
      expect(reminder.text).toContain(`How to join: ${JOINING}`);
      expect(reminder.text).toContain('- Sunday 1 March 2099, 03:00–07:00 EST');
      expect(calendarOf(reminder).events.map((event) => event.uid)).toEqual(calendarOf(booked.mail).events.map((event) => event.uid));
    } finally {
      await first.stop();
    }
    // Restarted a day later (the session still ahead, the first reminder long due): the witness is
    // reminded at its time, by then every look of the restarted server has seen the first booking
    // as due but reminded; it is not reminded again.
    const later = await site(
      env({ DATA_DIR: running.dataDir, BOOKING_REMINDER_HOURS: '24', LECTERN_CLOCK_OFFSET_MS: String(SPRING_START - 24 * HOUR - AHEAD_MS - Date.now()) }),
    );
    try {
      const second = await smtp.waitFor((mail) => mail.envelopeTo.includes(witness.buyer) && mail.subject?.startsWith('Starting') === true);
      expect(second.subject).toBe('Starting in 24 hours: Fixture Training');
      expect(mailsTo(booked.buyer, 'Starting')).toHaveLength(1);
      expect(mailsTo(witness.buyer, 'Starting')).toHaveLength(1);
    } finally {
      await later.stop();
    }
  }, 300_000);
});

describe('the reminder on a platform host (next start, PLATFORM_MODE, the Upstash stand-in)', () => {
  it('is queued by the cron call once its time has come, once, and mailed', async () => {
    // Database 11 is this test's alone (tests/unit/limits/limiter-contract.test.ts flushes 13).
    await flushRedis(testRedisUrl(11));
    const upstash = await startUpstashStandIn(testRedisUrl(11));
    const remindAt = SPRING_START - 48 * HOUR;
    // Next's own server, as a platform runs it: no scheduler of lectern's looks for reminders, only the cron call.
    const platform = async (offset: number) =>
      startSite({
        contentDir: inject('contentDir'),
        distDir: inject('distDir'),
        siteUrl: inject('siteUrl'),
        port: await freePort(),
        nextStart: true,
        extraEnv: env({
          PLATFORM_MODE: '1',
          UPSTASH_REDIS_REST_URL: upstash.url,
          UPSTASH_REDIS_REST_TOKEN: upstash.token,
          CLIENT_IP_HEADER: 'x-real-ip',
          CRON_SECRET: 'a-cron-secret-of-some-length',
          LECTERN_CLOCK_OFFSET_MS: String(offset),
        }),
      });
    const cron = async (baseUrl: string) => {
      const answer = await request(baseUrl, '/api/publish', { headers: { Authorization: 'Bearer a-cron-secret-of-some-length', 'X-Real-IP': freshAddress() } });
      expect(answer.status).toBe(200);
      return (answer.json() as { reminders?: number }).reminders;
    };
    const buyer = 'platform-reminded@example.com';
    try {
      // Booked today: the cron call finds nothing due.
      const today = await platform(0);
      try {
        const event = {
          id: 'evt_platform_reminded',
          object: 'event',
          type: 'checkout.session.completed',
          data: {
            object: {
              id: 'cs_platform_reminded',
              object: 'checkout.session',
              payment_status: 'paid',
              amount_total: 49000,
              currency: 'eur',
              customer_details: { email: buyer, name: 'Buyer' },
              payment_intent: 'pi_platform_reminded',
              metadata: { product: 'fixture-training', kind: 'training', session: 'spring', seats: '1' },
            },
          },
        };
        // As Stripe does, the event is sent again until it is answered 2xx.
        let outcome: unknown;
        await until(async () => {
          const answer = await signed(today.baseUrl, event);
          outcome = answer.status === 200 ? (answer.json() as { outcome: string }).outcome : undefined;
          return outcome !== undefined;
        }, 'the webhook to answer 200');
        expect(['recorded', 'duplicate']).toContain(outcome);
        expect(await cron(today.baseUrl)).toBe(0);
      } finally {
        await today.stop();
      }
      // The cron call of an instance whose clock is past the reminder's time queues it once.
      const due = await platform(remindAt + 1_000 - Date.now());
      try {
        expect(await cron(due.baseUrl)).toBe(1);
        expect(await cron(due.baseUrl)).toBe(0);
        await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer) && mail.subject?.startsWith('Starting') === true);
        expect(mailsTo(buyer, 'Starting')).toHaveLength(1);
      } finally {
        await due.stop();
      }
    } finally {
      await upstash.close();
    }
  }, 300_000);
});
