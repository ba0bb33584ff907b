import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBounceReaders, type BounceReaders } from '@/lib/newsletter/bounces/readers';
import { personalMail, renderNewsletterMail } from '@/lib/newsletter/mail';
import { createNewsletter, type NewsletterPost } from '@/lib/newsletter/sender';
import { createTransport } from '@/lib/services/mail/transport';
import { createMailWorker } from '@/lib/services/mail/worker';
import { Database } from '@/lib/services/store/sqlite-database';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import type { Store } from '@/lib/services/store/types';
import { parseSettings } from '@/lib/settings';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';
import { LOCAL_DOMAIN, startPostfix, type TestPostfix } from '../../../support/postfix';
import { arf } from '../../../support/reports';
import { freePort } from '../../../support/site';
import { until } from '../../../support/until';

/**
 * lectern in front of a real Postfix (Debian's, an instance of the test's own on loopback, local
 * delivery): the newsletter goes out through Postfix with a VERP envelope sender; one mailbox
 * accepts, the other is accepted at the door and bounced afterwards (5.2.0), so Postfix writes
 * the delivery status notification itself and sends it to the VERP address, which its transport
 * table routes to lectern's own bounce listener (BOUNCE_SMTP_PORT). A third mailbox fails
 * temporarily on every try, so Postfix sends delay notices (soft bounces); a feedback-loop report
 * comes in through Postfix like any mail; a confirmation to an address Postfix does not know is
 * refused at the door (550 5.1.1).
 */
const BOUNCE_DOMAIN = 'bounces.notes.test';
const BOUNCE_ADDRESS = `bounces@${BOUNCE_DOMAIN}`;
const site = { name: 'Notes', url: 'https://notes.test/', language: 'en' };
type Post = NewsletterPost & { description: string; body: string; url: string; markdownUrl: string };
const post = (slug: string, dateMillis: number): Post => ({
  slug,
  title: `Title of ${slug}`,
  description: 'A post.',
  body: `Body of ${slug}.`,
  url: `https://notes.test/blog/${slug}`,
  markdownUrl: `https://notes.test/blog/${slug}.md`,
  dateMillis,
  newsletter: true,
});

const reader = `reader@${LOCAL_DOMAIN}`;
const gone = `gone@${LOCAL_DOMAIN}`;
const full = `full@${LOCAL_DOMAIN}`;
const fan = `fan@${LOCAL_DOMAIN}`;
/** Soft bounces that suspend, in the test (SOFT_BOUNCE_LIMIT; the window is the default 30 days). */
const SOFT_LIMIT = 2;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-postfix-test-'));
let postfix: TestPostfix;
let store: Store;
let readers: BounceReaders;
let dbFile: string;
const cleanups: (() => Promise<void> | void)[] = [];
const logged: string[] = [];
const log = { log: (line: string) => logged.push(line), warn: (line: string) => logged.push(line) };

beforeAll(async () => {
  const listenerPort = await freePort();
  postfix = await startPostfix({
    mailboxes: ['reader', 'fan'],
    bouncing: { gone: '5.2.0 mailbox disabled' },
    deferring: { full: '4.2.2 mailbox full' },
    relayDomain: BOUNCE_DOMAIN,
    relayPort: listenerPort,
  });
  cleanups.push(() => postfix.stop());
  dbFile = path.join(tmp, 'lectern.db');
  store = openSqliteStore(dbFile);
  cleanups.push(() => store.close());
  const settings = parseSettings({
    DATA_DIR: tmp,
    SITE_URL: site.url,
    SMTP_URL: postfix.url,
    BOUNCE_ADDRESS,
    BOUNCE_SMTP_PORT: String(listenerPort),
    SOFT_BOUNCE_LIMIT: String(SOFT_LIMIT),
  });
  readers = startBounceReaders(settings, store, log);
  cleanups.push(async () => {
    readers.stop();
    await readers.drain();
  });
  expect(await readers.listenerPort).toBe(listenerPort);
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function confirmed(email: string) {
  await store.subscribers.subscribe({
    email,
    confirmTokenHash: `c-${email}`,
    unsubscribeTokenHash: `u-${email}`,
    resend: CONFIRMATION_RESEND,
    now: Date.now(),
    mail: { to: { address: email }, subject: 'c', text: 't', html: 'h' },
  });
  await store.subscribers.confirm(`c-${email}`, Date.now(), 0);
}

const subjects = (mails: string[]) => mails.map((raw) => /^Subject: (.*)$/m.exec(raw)?.[1]);

/** The posts the site has published, newest first; each test adds its own. */
let posts = [post('old', 1000)];

/** The newsletter sending through the test Postfix; `publish` adds a post and waits until its send is done. */
function newsletter() {
  const sender = createNewsletter({
    store,
    transport: createTransport(parseSettings({ SITE_URL: site.url, SMTP_URL: postfix.url, BOUNCE_ADDRESS }), () => site.name, true),
    clock: Date.now,
    settings: { rate: 0, checkMs: 60_000, retryBaseMs: 1000, bounceAddress: BOUNCE_ADDRESS },
    log,
    posts: () => posts,
    mailer: {
      render: (entry) => renderNewsletterMail(entry, site),
      personalize: (mail, recipient, token) =>
        personalMail(mail, recipient, { page: `https://notes.test/u?token=${token}`, oneClick: `https://notes.test/api/u?token=${token}` }, site),
    },
  });
  const settle = async () => {
    await sender.check();
    await sender.drain();
  };
  return {
    settle,
    async publish(slug: string) {
      posts = [post(slug, 1000 * (posts.length + 1)), ...posts];
      await settle();
    },
    async stop() {
      sender.stop();
      await sender.drain();
    },
  };
}

const suspended = async (email: string) => (await store.newsletter.rejections()).some((entry) => entry.email === email && entry.suspended);

describe('the newsletter in front of a real Postfix', () => {
  it('suspends a mailbox that Postfix accepted and then bounced, from the bounce Postfix sends, and mails it nothing of the next post', async () => {
    await confirmed(reader);
    await confirmed(gone);
    const sender = newsletter();
    try {
      await sender.settle(); // the first run records what is already published
      await sender.publish('first');
      expect(logged.join('\n'), postfix.log()).toContain('newsletter: "first" done: 2 sent, 0 failed, 0 skipped (unsubscribed meanwhile) of 2');
      await until(() => postfix.delivered('reader').length === 1, `the first post in the reader's mailbox\n${postfix.log()}`);
      expect(subjects(postfix.delivered('gone-copy'))).toEqual(['Title of first']);
      // Postfix's bounce, for the message lectern sent to gone@, comes back to its VERP address.
      await until(
        async () => (await store.newsletter.rejections()).some((entry) => entry.email === gone && entry.suspended),
        `the bounce to suspend ${gone}\n${postfix.log()}`,
      );
      expect(postfix.log()).toMatch(new RegExp(`to=<${gone}>, relay=bounce-gone.*dsn=5\\.2\\.0, status=bounced \\(mailbox disabled`));
      expect(postfix.log()).toMatch(new RegExp(`to=<bounces\\+[^@]+@${BOUNCE_DOMAIN.replace(/\./g, '\\.')}>.*status=sent`));
      expect(logged).toEqual(expect.arrayContaining([expect.stringMatching(/^bounces: hard bounce from a reader of "first": suspended \(5\.2\.0/)]));
      expect((await store.newsletter.rejections()).map((entry) => entry.email)).toEqual([gone]);

      await sender.publish('second');
      expect(logged.join('\n')).toContain('newsletter: "second" done: 1 sent, 0 failed, 0 skipped (unsubscribed meanwhile) of 1');
      await until(() => postfix.delivered('reader').length === 2, `the second post in the reader's mailbox\n${postfix.log()}`);
      expect(subjects(postfix.delivered('reader'))).toEqual(['Title of first', 'Title of second']);
      expect(subjects(postfix.delivered('gone-copy'))).toEqual(['Title of first']);
    } finally {
      await sender.stop();
    }
  });

  it(`suspends a mailbox that keeps failing for now after its ${SOFT_LIMIT}nd soft bounce (Postfix's delay notices), and mails it nothing more`, async () => {
    await confirmed(full);
    const sender = newsletter();
    const softBounces = () => logged.filter((line) => line.startsWith('bounces: soft bounce'));
    try {
      await sender.publish('third');
      expect(logged.join('\n'), postfix.log()).toContain('newsletter: "third" done: 2 sent, 0 failed, 0 skipped (unsubscribed meanwhile) of 2');
      // Postfix keeps the message queued (4.2.2 on every try) and sends its delay notice to the VERP address.
      await until(() => softBounces().length === 1, `the delay notice for "third"\n${postfix.log()}`);
      expect(softBounces()).toEqual([expect.stringMatching(/^bounces: soft bounce from a reader of "third": counted \(4\.2\.2/)]);
      expect(postfix.log()).toMatch(new RegExp(`to=<${full}>, relay=bounce-full.*dsn=4\\.2\\.2, status=deferred \\(mailbox full`));
      expect(await suspended(full)).toBe(false);

      await sender.publish('fourth');
      expect(logged.join('\n')).toContain('newsletter: "fourth" done: 2 sent, 0 failed, 0 skipped (unsubscribed meanwhile) of 2');
      await until(() => suspended(full), `the second delay notice to suspend ${full}\n${postfix.log()}`);
      expect(softBounces()[1]).toMatch(/^bounces: soft bounce from a reader of "fourth": suspended \(4\.2\.2/);

      await sender.publish('fifth');
      expect(logged.join('\n')).toContain('newsletter: "fifth" done: 1 sent, 0 failed, 0 skipped (unsubscribed meanwhile) of 1');
      await until(() => subjects(postfix.delivered('reader')).includes('Title of fifth'), `"fifth" in the reader's mailbox\n${postfix.log()}`);
      expect(subjects(postfix.delivered('full-copy'))).toEqual(['Title of third', 'Title of fourth']);
    } finally {
      await sender.stop();
    }
  });

  it('unsubscribes a reader whose mailbox provider sends a feedback-loop report (ARF) through Postfix, and mails it nothing more', async () => {
    await confirmed(fan);
    const sender = newsletter();
    try {
      await sender.publish('sixth');
      await until(() => postfix.delivered('fan').length === 1, `"sixth" in the fan's mailbox\n${postfix.log()}`);
      // The reader presses "spam"; the provider's report returns the message with the Return-Path it was delivered with.
      const returnPath = /^Return-Path: <([^>]+)>/m.exec(postfix.delivered('fan')[0] ?? '')?.[1] ?? '';
      expect(returnPath).toMatch(new RegExp(`^bounces\\+[A-Za-z0-9_-]{32}@${BOUNCE_DOMAIN.replace(/\./g, '\\.')}$`));
      const provider = nodemailer.createTransport({ url: postfix.url, ignoreTLS: true });
      await provider.sendMail({ envelope: { from: `feedback@${LOCAL_DOMAIN}`, to: [BOUNCE_ADDRESS] }, raw: arf({ to: BOUNCE_ADDRESS, verp: returnPath }) });
      provider.close();
      await until(
        async () => (await store.subscribers.list()).find((subscriber) => subscriber.email === fan)?.status === 'unsubscribed',
        `the complaint to unsubscribe ${fan}\n${postfix.log()}`,
      );
      expect(logged).toEqual(
        expect.arrayContaining([expect.stringMatching(/^bounces: complaint from a reader of "sixth": unsubscribed \(feedback report: abuse\)/)]),
      );

      await sender.publish('seventh');
      expect(logged.join('\n')).toContain('newsletter: "seventh" done: 1 sent, 0 failed, 0 skipped (unsubscribed meanwhile) of 1');
      await until(() => subjects(postfix.delivered('reader')).includes('Title of seventh'), `"seventh" in the reader's mailbox\n${postfix.log()}`);
      expect(subjects(postfix.delivered('fan'))).toEqual(['Title of sixth']);
    } finally {
      await sender.stop();
    }
  });

  it('records a confirmation Postfix refuses with 550 as failed after one try, and never tries it again', async () => {
    const nobody = `nobody@${LOCAL_DOMAIN}`;
    await store.subscribers.subscribe({
      email: nobody,
      confirmTokenHash: 'c-nobody',
      unsubscribeTokenHash: 'u-nobody',
      resend: CONFIRMATION_RESEND,
      now: Date.now(),
      mail: { to: { address: nobody }, subject: 'Confirm your subscription', text: 't', html: 'h' },
    });
    const settings = parseSettings({ SITE_URL: site.url, SMTP_URL: postfix.url, BOUNCE_ADDRESS });
    const warnings: string[] = [];
    // The worker's clock is moved a day on between its two looks: a retry, had one been planned, is due by then.
    let offset = 0;
    const worker = createMailWorker({
      ...settings.mail,
      store,
      transport: createTransport(settings, () => site.name),
      pollMs: 60_000,
      clock: () => Date.now() + offset,
      log: { warn: (line: string) => warnings.push(line) },
    });
    worker.start();
    try {
      await worker.drain();
      offset = 24 * 60 * 60 * 1000;
      worker.kick();
      await worker.drain();
    } finally {
      worker.stop();
      await worker.drain();
    }
    const rejected = () =>
      postfix
        .log()
        .split('\n')
        .filter((line) => line.includes('NOQUEUE: reject: RCPT') && line.includes(`to=<${nobody}>`));
    await until(() => rejected().length > 0, `Postfix's refusal in its log\n${postfix.log()}`);
    expect(rejected()).toEqual([expect.stringMatching(/550 5\.1\.1 <nobody@mail\.test>: Recipient address rejected/)]);
    const db = new Database(dbFile, { readonly: true });
    try {
      const rows = db.prepare("SELECT attempts, sent_at, failed_at, last_error FROM outbox WHERE mail LIKE '%nobody@%'").all() as {
        attempts: number;
        sent_at: number | null;
        failed_at: number | null;
        last_error: string;
      }[];
      expect(rows).toEqual([{ attempts: 1, sent_at: null, failed_at: expect.any(Number), last_error: expect.stringContaining('550') }]);
    } finally {
      db.close();
    }
    expect(warnings).toEqual([expect.stringMatching(/^mail: a message failed for good after 1 attempt \(refused: .*550/)]);
  });
});
