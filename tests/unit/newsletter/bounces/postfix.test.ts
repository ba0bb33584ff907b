import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBounceReaders, type BounceReaders } from '@/lib/newsletter/bounces/readers';
import { personalMail, renderNewsletterMail } from '@/lib/newsletter/mail';
import { createNewsletter, type NewsletterPost } from '@/lib/newsletter/sender';
import { createTransport } from '@/lib/services/mail/transport';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import type { Store } from '@/lib/services/store/types';
import { parseSettings } from '@/lib/settings';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';
import { LOCAL_DOMAIN, startPostfix, type TestPostfix } from '../../../support/postfix';
import { freePort } from '../../../support/site';
import { until } from '../../../support/until';

/**
 * lectern in front of a real Postfix (Debian's, an instance of the test's own on loopback, local
 * delivery): the newsletter goes out through Postfix with a VERP envelope sender; one mailbox
 * accepts, the other is accepted at the door and bounced afterwards (5.2.0), so Postfix writes
 * the delivery status notification itself and sends it to the VERP address, which its transport
 * table routes to lectern's own bounce listener (BOUNCE_SMTP_PORT).
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
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-postfix-test-'));
let postfix: TestPostfix;
let store: Store;
let readers: BounceReaders;
const cleanups: (() => Promise<void> | void)[] = [];
const logged: string[] = [];
const log = { log: (line: string) => logged.push(line), warn: (line: string) => logged.push(line) };

beforeAll(async () => {
  const listenerPort = await freePort();
  postfix = await startPostfix({ mailboxes: ['reader'], bouncing: { gone: '5.2.0 mailbox disabled' }, relayDomain: BOUNCE_DOMAIN, relayPort: listenerPort });
  cleanups.push(() => postfix.stop());
  store = openSqliteStore(path.join(tmp, 'lectern.db'));
  cleanups.push(() => store.close());
  const settings = parseSettings({ DATA_DIR: tmp, SITE_URL: site.url, SMTP_URL: postfix.url, BOUNCE_ADDRESS, BOUNCE_SMTP_PORT: String(listenerPort) });
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

describe('the newsletter in front of a real Postfix', () => {
  it('suspends a mailbox that Postfix accepted and then bounced, from the bounce Postfix sends, and mails it nothing of the next post', async () => {
    await confirmed(reader);
    await confirmed(gone);
    let posts = [post('old', 1000)];
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
    try {
      await settle(); // the first run records what is already published
      posts = [post('first', 2000), ...posts];
      await settle();
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

      posts = [post('second', 3000), ...posts];
      await settle();
      expect(logged.join('\n')).toContain('newsletter: "second" done: 1 sent, 0 failed, 0 skipped (unsubscribed meanwhile) of 1');
      await until(() => postfix.delivered('reader').length === 2, `the second post in the reader's mailbox\n${postfix.log()}`);
      expect(subjects(postfix.delivered('reader'))).toEqual(['Title of first', 'Title of second']);
      expect(subjects(postfix.delivered('gone-copy'))).toEqual(['Title of first']);
    } finally {
      sender.stop();
      await sender.drain();
    }
  });
});
