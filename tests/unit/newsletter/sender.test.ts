import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { personalMail, renderNewsletterMail } from '@/lib/newsletter/mail';
import { createNewsletter, type Newsletter, type NewsletterPost } from '@/lib/newsletter/sender';
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

function newsletter(): Newsletter {
  const made = createNewsletter({
    store,
    transport: createTransport(parseSettings({ SMTP_URL: smtp.url, SITE_URL: site.url }), () => site.name, { rate: 0 }),
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
});
