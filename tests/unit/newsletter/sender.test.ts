import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { personalMail, renderNewsletterMail } from '@/lib/newsletter/mail';
import { createNewsletter, pacer, type Newsletter, type NewsletterPost } from '@/lib/newsletter/sender';
import { createTransport } from '@/lib/services/mail/transport';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import type { Store } from '@/lib/services/store/types';
import { hashToken } from '@/lib/services/tokens';
import { startSmtp, type Refusal } from '../../support/smtp';
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

/** A sender on the test's store (or on a view of it that does more around its calls). */
function newsletter(on: Pick<Store, 'newsletter'> = store): Newsletter {
  const made = createNewsletter({
    store: on,
    transport: createTransport(parseSettings({ SMTP_URL: smtp.url, SITE_URL: site.url }), () => site.name, true),
    clock: () => now,
    settings: { rate: 0, checkMs: 60_000, retryBaseMs: 1000 },
    log: { log: (line: string) => logged.push(line), warn: (line: string) => logged.push(line) },
    posts: () => posts,
    mailer: {
      render: (entry) => renderNewsletterMail(entry, site),
      personalize: (mail, recipient, token) =>
        personalMail(mail, recipient, { page: `https://notes.example/u?token=${token}`, oneClick: `https://notes.example/api/u?token=${token}` }, site),
    },
  });
  running.push(made);
  return made;
}

async function confirmed(email: string) {
  await store.subscribers.subscribe({
    email,
    confirmTokenHash: `c-${email}`,
    unsubscribeTokenHash: `u-${email}`,
    resend: CONFIRMATION_RESEND,
    now,
    mail: { to: { address: email }, subject: 'c', text: 't', html: 'h' },
  });
  await store.subscribers.confirm(`c-${email}`, now, 0);
}

/** Runs checks and sends until nothing is due now. */
async function settle(sender: Newsletter) {
  await sender.check();
  await sender.drain();
}

const received = (subject: string) => smtp.messages.filter((mail) => mail.subject === subject);

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
    const unsubscribingAfterClaims: Pick<Store, 'newsletter'> = {
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
