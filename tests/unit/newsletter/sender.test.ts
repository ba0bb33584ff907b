import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { personalMail, renderNewsletterMail } from '@/lib/newsletter/mail';
import { createNewsletter, pacer, type Newsletter, type NewsletterPost } from '@/lib/newsletter/sender';
import type { Timers } from '@/lib/publishing/scheduler';
import { createTransport, type MailTransport } from '@/lib/services/mail/transport';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import type { Store } from '@/lib/services/store/types';
import { hashToken } from '@/lib/services/tokens';
import { verpToken } from '@/lib/services/mail/envelope';
import { fakeTime } from '../../support/fake-time';
import { startSmtp, type Refusal } from '../../support/smtp';
import { until } from '../../support/until';
import { confirmedReader } from '../../support/newsletter';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';

const site = { name: 'Notes', url: 'https://notes.example/', language: 'en' };
type Post = NewsletterPost & { description: string; body: string; url: string; markdownUrl: string };
const post = (slug: string, extra: Partial<Post> = {}): Post => ({
  slug,
  title: `Title of ${slug}`,
  description: 'd',
  body: `Body of ${slug}.`,
  url: `https://notes.example/blog/${slug}`,
  markdownUrl: `https://notes.example/blog/${slug}.md`,
  dateMillis: 1000,
  newsletter: true,
  ...extra,
});

// Refusals by address, consulted at every RCPT TO: a list is used up one reply at a time.
const refusals = new Map<string, Refusal[]>();
const smtp = await startSmtp(undefined, { refuse: (address) => refusals.get(address)?.shift() });
afterAll(() => smtp.close());

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-newsletter-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

let store: Store;
let posts: Post[];
let now: number;
let running: Newsletter[] = [];
const logged: string[] = [];
let counter = 0;

beforeEach(() => {
  store = openSqliteStore(path.join(tmp, `store-${++counter}.db`));
  posts = [post('old')];
  now = 1_000_000;
  smtp.messages.length = 0;
  refusals.clear();
  logged.length = 0;
});
afterEach(async () => {
  for (const newsletter of running) newsletter.stop();
  await Promise.all(running.map((newsletter) => newsletter.drain()));
  running = [];
  await store.close();
});

/**
 * A sender on the test's store (or on a view of it that does more around its calls), sending to
 * the test's SMTP server unless given a transport, on the test's clock unless given one.
 */
function newsletter(
  on: Pick<Store, 'newsletter' | 'bounces'> = store,
  extra: { transport?: MailTransport; clock?: () => number; timers?: Timers; leaseMs?: number; bounceAddress?: string } = {},
): Newsletter {
  const mailSite = extra.bounceAddress ? { ...site, replyTo: { name: 'Mara', address: 'mara@notes.example' } } : site;
  const made = createNewsletter({
    store: on,
    transport:
      extra.transport ??
      createTransport(
        parseSettings({ SMTP_URL: smtp.url, SITE_URL: site.url, ...(extra.bounceAddress ? { BOUNCE_ADDRESS: extra.bounceAddress } : {}) }),
        () => site.name,
        true,
      ),
    clock: extra.clock ?? (() => now),
    ...(extra.timers ? { timers: extra.timers } : {}),
    settings: {
      rate: 0,
      checkMs: 60_000,
      retryBaseMs: 1000,
      ...(extra.leaseMs ? { leaseMs: extra.leaseMs } : {}),
      ...(extra.bounceAddress ? { bounceAddress: extra.bounceAddress } : {}),
    },
    log: { log: (line: string) => logged.push(line), warn: (line: string) => logged.push(line) },
    posts: () => posts,
    mailer: {
      render: (entry) => renderNewsletterMail(entry, site),
      personalize: (mail, recipient, token) =>
        personalMail(mail, recipient, { page: `https://notes.example/u?token=${token}`, oneClick: `https://notes.example/api/u?token=${token}` }, mailSite),
    },
  });
  running.push(made);
  return made;
}

const confirmed = (email: string) => confirmedReader(store.subscribers, email, now);

/** Runs checks and sends until nothing is due now. */
async function settle(sender: Newsletter) {
  await sender.check();
  await sender.drain();
}

const received = (subject: string) => smtp.messages.filter((mail) => mail.subject === subject);

/** A mail server that takes each message at once and answers it only when the test says so: a slow relay. */
function slowRelay() {
  const taken: string[] = [];
  let answer = () => {};
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const transport: MailTransport = {
    kind: 'smtp',
    send: async (mail) => {
      taken.push(mail.to.address);
      await answered;
    },
  };
  return { transport, taken, answer };
}

describe('the newsletter sender', () => {
  it('mails nothing on its first run, then mails a newly published post once to each confirmed subscriber', async () => {
    await confirmed('a@example.com');
    await confirmed('b@example.com');
    await store.subscribers.subscribe({
      email: 'p@example.com',
      confirmTokenHash: 'cp',
      unsubscribeTokenHash: 'up',
      resend: CONFIRMATION_RESEND,
      now,
      mail: { to: { address: 'p@example.com' }, subject: 'c', text: 't', html: 'h' },
    });
    const sender = newsletter();
    await settle(sender);
    expect(smtp.messages).toHaveLength(0);
    expect(logged).toContain('newsletter: first run: 1 published post recorded, none mailed');

    posts = [post('fresh'), ...posts];
    await settle(sender);
    await settle(sender);
    await settle(newsletter());
    const mails = received('Title of fresh');
    expect(mails.map((mail) => mail.envelopeTo[0]).sort()).toEqual(['a@example.com', 'b@example.com']);
    expect(new Set(mails.map((mail) => mail.messageId)).size).toBe(2);
    expect(logged).toEqual(
      expect.arrayContaining([
        'newsletter: sending "fresh" to 2 subscribers',
        'newsletter: "fresh" done: 2 sent, 0 failed, 0 skipped (unsubscribed meanwhile) of 2',
      ]),
    );
    // The link in a mail unsubscribes its reader.
    const token = /token=([A-Za-z0-9_-]+)/.exec(mails[0]?.text ?? '')?.[1] ?? '';
    expect(await store.subscribers.unsubscribe(hashToken(token), now)).toMatchObject({ email: mails[0]?.envelopeTo[0], status: 'unsubscribed' });
  });

  it('sends each message from its own bounce address, replies to the author, and a hard bounce keeps the next post from its reader', async () => {
    await confirmed('a@example.com');
    await confirmed('b@example.com');
    const sender = newsletter(store, { bounceAddress: 'bounces@notes.example' });
    await settle(sender);
    posts = [post('fresh'), ...posts];
    await settle(sender);
    const mails = received('Title of fresh');
    expect(mails).toHaveLength(2);
    const tokens = mails.map((mail) => verpToken(mail.envelopeFrom, 'bounces@notes.example'));
    expect(new Set(tokens).size).toBe(2);
    for (const mail of mails) {
      expect(mail.from?.address).toBe('no-reply@notes.example');
      expect(mail.replyTo?.[0]?.address).toBe('mara@notes.example');
    }
    const bounced = mails.findIndex((mail) => mail.envelopeTo[0] === 'b@example.com');
    const outcome = await store.bounces.record({
      tokenHash: hashToken(tokens[bounced] ?? ''),
      reportId: 'dsn-1',
      kind: 'hard',
      detail: '5.2.0 mailbox disabled',
      now,
      soft: { limit: 3, windowMs: 1000 },
    });
    expect(outcome).toEqual({ matched: true, email: 'b@example.com', slug: 'fresh', action: 'suspended' });
    posts = [post('next', { dateMillis: 2000 }), ...posts];
    await settle(sender);
    expect(received('Title of next').map((mail) => mail.envelopeTo[0])).toEqual(['a@example.com']);
  });

  it('records a post marked newsletter: false and mails it to nobody', async () => {
    await confirmed('a@example.com');
    const sender = newsletter();
    await settle(sender);
    posts = [post('quiet', { newsletter: false }), ...posts];
    await settle(sender);
    expect(smtp.messages).toHaveLength(0);
    expect(await store.newsletter.recorded(['quiet'])).toEqual(new Set(['quiet']));
  });

  it('tries a temporary refusal again after its backoff and delivers it once', async () => {
    await confirmed('slow@example.com');
    const sender = newsletter();
    await settle(sender);
    refusals.set('slow@example.com', [{ code: 451, message: 'Try again later' }]);
    posts = [post('fresh'), ...posts];
    await settle(sender);
    expect(received('Title of fresh')).toHaveLength(0);
    expect((await store.newsletter.sends())[0]).toMatchObject({ waiting: 1, sent: 0 });
    now += 999;
    await settle(sender);
    expect(received('Title of fresh')).toHaveLength(0);
    now += 1;
    sender.kick();
    await sender.drain();
    expect(received('Title of fresh').map((mail) => mail.envelopeTo)).toEqual([['slow@example.com']]);
    expect((await store.newsletter.sends())[0]).toMatchObject({ state: 'sent', sent: 1, waiting: 0 });
  });

  it('records a permanent refusal, suspends the address at the second, and sends it nothing after', async () => {
    await confirmed('gone@example.com');
    await confirmed('ok@example.com');
    const sender = newsletter();
    await settle(sender);
    refusals.set('gone@example.com', [
      { code: 550, message: 'No such user' },
      { code: 550, message: 'No such user' },
    ]);
    posts = [post('first', { dateMillis: 2000 }), ...posts];
    await settle(sender);
    posts = [post('second', { dateMillis: 3000 }), ...posts];
    await settle(sender);
    posts = [post('third', { dateMillis: 4000 }), ...posts];
    await settle(sender);
    expect(smtp.messages.map((mail) => `${mail.subject} ${mail.envelopeTo[0]}`)).toEqual([
      'Title of first ok@example.com',
      'Title of second ok@example.com',
      'Title of third ok@example.com',
    ]);
    const sends = await store.newsletter.sends();
    expect(sends.map((send) => [send.slug, send.recipients, send.sent, send.failed])).toEqual([
      ['first', 2, 1, 1],
      ['second', 2, 1, 1],
      ['third', 1, 1, 0],
    ]);
    expect(await store.newsletter.rejections()).toEqual([expect.objectContaining({ email: 'gone@example.com', count: 2, suspended: true })]);
    expect(logged.some((line) => line.includes('suspended'))).toBe(true);
  });

  it('sends nothing to a reader who unsubscribes after their message was claimed and before it left', async () => {
    await confirmed('stays@example.com');
    await confirmed('leaves@example.com');
    // Each claim is followed at once by leaves@'s unsubscribe, before any message of the batch is sent.
    const unsubscribingAfterClaims: Pick<Store, 'newsletter' | 'bounces'> = {
      bounces: store.bounces,
      newsletter: {
        ...store.newsletter,
        claim: async (input) => {
          const claimed = await store.newsletter.claim(input);
          if (claimed.length > 0) await store.subscribers.unsubscribe('u-leaves@example.com', now);
          return claimed;
        },
      },
    };
    const sender = newsletter(unsubscribingAfterClaims);
    await settle(sender);
    posts = [post('fresh'), ...posts];
    await settle(sender);
    expect(received('Title of fresh').map((mail) => mail.envelopeTo)).toEqual([['stays@example.com']]);
    expect((await store.newsletter.sends())[0]).toMatchObject({ state: 'sent', recipients: 2, sent: 1, skipped: 1, waiting: 0 });
  });

  it('sends in steps of at most a batch, none once its time has passed, and says when more may be due', async () => {
    for (const index of [1, 2, 3, 4, 5]) await confirmed(`r${index}@example.com`);
    const sender = newsletter();
    expect(await sender.step({ messages: 2, until: now + 1000 })).toEqual({ messages: 0, more: false });
    posts = [post('fresh'), ...posts];
    expect(await sender.step({ messages: 2, until: now + 1000 })).toEqual({ messages: 2, more: true });
    expect(received('Title of fresh')).toHaveLength(2);
    expect(await sender.step({ messages: 2, until: now })).toEqual({ messages: 0, more: true });
    expect(received('Title of fresh')).toHaveLength(2);
    expect(await sender.step({ messages: 2, until: now + 1000 })).toEqual({ messages: 2, more: true });
    expect(await sender.step({ messages: 2, until: now + 1000 })).toEqual({ messages: 1, more: false });
    expect(
      received('Title of fresh')
        .map((mail) => mail.envelopeTo[0])
        .sort(),
    ).toEqual([1, 2, 3, 4, 5].map((index) => `r${index}@example.com`));
    expect((await store.newsletter.sends())[0]).toMatchObject({ state: 'sent', sent: 5, waiting: 0 });
  });

  it('sends each message once when steps of two senders on one store overlap', async () => {
    const emails = Array.from({ length: 12 }, (_, index) => `r${index}@example.com`);
    for (const email of emails) await confirmed(email);
    const [one, two] = [newsletter(), newsletter()];
    await one.step({ messages: 3, until: now + 1000 });
    posts = [post('fresh'), ...posts];
    for (let round = 0; round < 4; round++) {
      await Promise.all([one.step({ messages: 3, until: now + 1000 }), two.step({ messages: 3, until: now + 1000 })]);
    }
    const recipients = received('Title of fresh').map((mail) => mail.envelopeTo[0]);
    expect(recipients.toSorted()).toEqual(emails.toSorted());
  });
});

describe('a sender holding its claims', () => {
  const LEASE = 1_000;

  it('keeps a message on the wire past its lease with a heartbeat: a second sender does not send it again', async () => {
    for (const email of ['a@example.com', 'b@example.com']) await confirmed(email);
    const time = fakeTime(now);
    const [slow, other] = [slowRelay(), slowRelay()];
    other.answer();
    const one = newsletter(store, { transport: slow.transport, clock: time.clock, timers: time.timers, leaseMs: LEASE });
    const two = newsletter(store, { transport: other.transport, clock: time.clock, timers: time.timers, leaseMs: LEASE });
    await settle(one);
    posts = [post('fresh'), ...posts];
    await one.check();
    await until(() => slow.taken.length === 2, 'both messages on the wire');
    // The relay holds both answers for three leases; the second sender looks meanwhile, and after.
    for (let lease = 0; lease < 3; lease++) {
      await time.advance(time.clock() + LEASE);
      two.kick();
      await two.drain();
    }
    expect(other.taken).toEqual([]);
    slow.answer();
    await one.drain();
    await time.advance(time.clock() + 3 * LEASE);
    await settle(two);
    expect(slow.taken.toSorted()).toEqual(['a@example.com', 'b@example.com']);
    expect(other.taken).toEqual([]);
    expect((await store.newsletter.sends())[0]).toMatchObject({ state: 'sent', sent: 2, waiting: 0 });
  });

  it('stopped mid-batch, starts no new message, finishes the ones on the wire, and gives the rest back for another sender at once', async () => {
    const emails = ['a', 'b', 'c', 'd', 'e'].map((name) => `${name}@example.com`);
    for (const email of emails) await confirmed(email);
    const [slow, next] = [slowRelay(), slowRelay()];
    next.answer();
    const stopping = newsletter(store, { transport: slow.transport });
    await settle(stopping);
    posts = [post('fresh'), ...posts];
    await stopping.check();
    // Three connections: three messages on the wire, two claimed and waiting their turn.
    await until(() => slow.taken.length === 3, 'three messages on the wire');
    stopping.stop();
    slow.answer();
    await stopping.drain();
    expect(slow.taken).toHaveLength(3);
    expect((await store.newsletter.sends())[0]).toMatchObject({ sent: 3, waiting: 2 });
    // The two given back are due now: the next sender sends them without waiting out the lease.
    await settle(newsletter(store, { transport: next.transport }));
    expect([...slow.taken, ...next.taken].toSorted()).toEqual(emails);
    expect((await store.newsletter.sends())[0]).toMatchObject({ state: 'sent', sent: 5, waiting: 0 });
  });

  it('records a message as sent only while its claim holds it: a sender stalled past its lease is told, and the other sender records it', async () => {
    await confirmed('a@example.com');
    const time = fakeTime(now);
    const [stalled, other] = [slowRelay(), slowRelay()];
    other.answer();
    const one = newsletter(store, { transport: stalled.transport, clock: time.clock, timers: time.timers, leaseMs: LEASE });
    await settle(one);
    posts = [post('fresh'), ...posts];
    await one.check();
    await until(() => stalled.taken.length === 1, 'the message on the wire');
    // The first sender's process stalls: its clock moves past the lease and none of its timers runs.
    const resumed = time.clock() + 2 * LEASE;
    const two = newsletter(store, { transport: other.transport, clock: () => resumed, timers: time.timers, leaseMs: LEASE });
    await settle(two);
    expect(other.taken).toEqual(['a@example.com']);
    stalled.answer();
    await one.drain();
    expect(logged).toContain('newsletter: "fresh": 1 message was sent after another sender had claimed it; a reader may get it twice (same Message-ID)');
    expect((await store.newsletter.sends())[0]).toMatchObject({ state: 'sent', sent: 1, waiting: 0 });
  });
});

describe('the pacer of a sender', () => {
  it('gives each message its moment at the rate, waiting only for moments ahead of the clock', async () => {
    let clock = 0;
    const waits: number[] = [];
    const pace = pacer(
      4,
      () => clock,
      async (ms) => void waits.push(ms),
    );
    await Promise.all([pace(), pace(), pace()]);
    expect(waits).toEqual([250, 500]);
    clock = 2_000;
    await pace();
    clock = 2_100;
    await pace();
    expect(waits).toEqual([250, 500, 150]);
  });

  it('never waits at rate 0', async () => {
    const waits: number[] = [];
    const pace = pacer(
      0,
      () => 0,
      async (ms) => void waits.push(ms),
    );
    await Promise.all([pace(), pace(), pace()]);
    expect(waits).toEqual([]);
  });
});
