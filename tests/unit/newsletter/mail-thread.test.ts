import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { renderNewsletterMail } from '@/lib/newsletter/mail';
import { mailThread, type MailThreadSetup, type ThreadMessage } from '@/lib/newsletter/mail-thread';
import { createNewsletter, type MessageTransport, type NewsletterPost } from '@/lib/newsletter/sender';
import { verpToken } from '@/lib/services/mail/envelope';
import { isPermanentFailure } from '@/lib/services/mail/transport';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { parseSettings } from '@/lib/settings';
import { confirmedReader } from '../../support/newsletter';
import { startSmtp, type Refusal } from '../../support/smtp';
import { osThreads, threadNiceness } from '../../support/threads';

const site = { name: 'Notes', url: 'https://notes.example/', language: 'en' };
const refusals = new Map<string, Refusal>();
let slowMs = 0;
const smtp = await startSmtp(undefined, { refuse: (address) => refusals.get(address), answerAfterMs: () => slowMs });
afterAll(() => smtp.close());
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-mail-thread-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const setup: MailThreadSetup = {
  settings: parseSettings({ SMTP_URL: smtp.url, SITE_URL: site.url, BOUNCE_ADDRESS: 'bounces@notes.example' }),
  site: { name: site.name, url: site.url },
};
const links = (token: string) => ({ page: `https://notes.example/u?token=${token}`, oneClick: `https://notes.example/api/u?token=${token}` });
const post = {
  slug: 'hello',
  title: 'Hello, thread',
  description: 'd',
  body: 'A body with an [unsubscribe-looking link](https://notes.example/x).',
  url: 'https://notes.example/blog/hello',
  markdownUrl: 'https://notes.example/blog/hello.md',
  dateMillis: 1000,
};

let opened: MessageTransport<ThreadMessage>[] = [];
function thread(options: { entry?: URL } = {}) {
  const made = mailThread(setup, options);
  opened.push(made);
  return made;
}
afterEach(async () => {
  await Promise.all(opened.map((made) => made.close?.()));
  opened = [];
  refusals.clear();
  slowMs = 0;
  smtp.messages.length = 0;
});

describe('the mail thread', () => {
  it("sends each reader's own copy of the send's mail, with their links, the fixed Message-ID and their VERP sender", async () => {
    const transport = thread();
    transport.start?.();
    const mail = await renderNewsletterMail(post, site);
    await Promise.all([
      transport.send({ mail, to: { email: 'a@example.com' }, unsubscribe: links('token-a') }, undefined, 'A'.repeat(32)),
      transport.send({ mail, to: { email: 'b@example.com' }, unsubscribe: links('token-b') }),
    ]);
    const a = smtp.messages.find((message) => message.envelopeTo.includes('a@example.com'))!;
    const b = smtp.messages.find((message) => message.envelopeTo.includes('b@example.com'))!;
    expect(a.subject).toBe('Hello, thread');
    expect(a.text).toContain('Unsubscribe: https://notes.example/u?token=token-a');
    expect(a.html).toContain('href="https://notes.example/u?token=token-a"');
    expect(a.text).not.toContain('token-b');
    expect(b.text).toContain('Unsubscribe: https://notes.example/u?token=token-b');
    expect(a.headers.find((header) => header.key === 'list-unsubscribe')?.value).toBe('<https://notes.example/api/u?token=token-a>');
    expect(a.messageId).toMatch(/^<hello\.[\w-]{24}@notes\.example>$/);
    expect(b.messageId).not.toBe(a.messageId);
    expect(verpToken(a.envelopeFrom, 'bounces@notes.example')).toBe('A'.repeat(32));
    expect(b.from?.address).toBe('no-reply@notes.example');
    // The thread runs at the lowest CPU priority; the test's own thread does not.
    expect(threadNiceness()).toContain(19);
    expect(os.getPriority()).toBe(0);
  });

  it("keeps the mail server's verdict: a 550 is permanent, a 451 is not", async () => {
    refusals.set('gone@example.com', { code: 550, message: 'No such user' });
    refusals.set('later@example.com', { code: 451, message: 'Try again later' });
    const transport = thread();
    const mail = await renderNewsletterMail(post, site);
    const gone = await transport.send({ mail, to: { email: 'gone@example.com' }, unsubscribe: links('g') }).catch((error: unknown) => error);
    const later = await transport.send({ mail, to: { email: 'later@example.com' }, unsubscribe: links('l') }).catch((error: unknown) => error);
    expect(gone).toBeInstanceOf(Error);
    expect((gone as Error).message).toContain('No such user');
    expect(isPermanentFailure(gone)).toBe(true);
    expect(later).toBeInstanceOf(Error);
    expect(isPermanentFailure(later)).toBe(false);
  });

  it('fails the messages a thread held when it dies as temporary, and starts a new thread for the next', async () => {
    const transport = thread({ entry: new URL('./fixtures/mail-thread-that-dies.ts', import.meta.url) });
    const mail = await renderNewsletterMail(post, site);
    const crashed = await transport.send({ mail, to: { email: 'crash@example.com' }, unsubscribe: links('c') }).catch((error: unknown) => error);
    expect((crashed as Error).message).toMatch(/mail thread ended/);
    expect(isPermanentFailure(crashed)).toBe(false);
    await transport.send({ mail, to: { email: 'after@example.com' }, unsubscribe: links('n') });
    expect(smtp.messages.map((message) => message.envelopeTo)).toEqual([['after@example.com']]);
  });

  it('closed mid-send, fails the held message as temporary and leaves no thread behind once closed', async () => {
    const before = osThreads();
    slowMs = 10_000;
    const transport = thread();
    const mail = await renderNewsletterMail(post, site);
    const sending = transport.send({ mail, to: { email: 'slow@example.com' }, unsubscribe: links('s') }).catch((error: unknown) => error);
    for (let waited = 0; smtp.messages.length === 0; waited += 20) {
      if (waited > 10_000) throw new Error('the message never reached the mail server');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(osThreads()).toBeGreaterThan(before);
    await transport.close?.();
    expect(osThreads()).toBe(before);
    const failed = await sending;
    expect(failed).toBeInstanceOf(Error);
    expect(isPermanentFailure(failed)).toBe(false);
  });
});

describe('the newsletter through the mail thread', () => {
  it('mails a new post once to each confirmed reader, each with their own unsubscribe link', async () => {
    const store = openSqliteStore(path.join(tmp, 'store.db'));
    let now = 1_000_000;
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) await confirmedReader(store.subscribers, email, now);
    const posts: (NewsletterPost & typeof post)[] = [];
    const transport = thread();
    const tokens = new Map<string, string>();
    const newsletter = createNewsletter<NewsletterPost & typeof post, ThreadMessage>({
      store,
      transport,
      clock: () => now,
      settings: { rate: 0, checkMs: 60_000, retryBaseMs: 1000 },
      log: { log: () => {}, warn: () => {} },
      posts: () => posts,
      mailer: {
        render: (entry) => renderNewsletterMail(entry, site),
        personalize: (mail, recipient, token) => {
          tokens.set(recipient.email, token);
          return { mail, to: { email: recipient.email }, unsubscribe: links(token) };
        },
      },
    });
    try {
      newsletter.start();
      await newsletter.check();
      posts.push({ ...post, newsletter: true });
      now += 1000;
      await newsletter.check();
      for (let waited = 0; smtp.messages.length < 3; waited += 20) {
        if (waited > 20_000) throw new Error(`${smtp.messages.length} of 3 messages arrived`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      newsletter.stop();
      await newsletter.drain();
      expect(smtp.messages.map((message) => message.envelopeTo[0]).sort()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
      for (const message of smtp.messages) expect(message.text).toContain(`token=${tokens.get(message.envelopeTo[0]!)}`);
      expect((await store.newsletter.sends()).find((send) => send.slug === 'hello')).toMatchObject({ sent: 3, failed: 0 });
    } finally {
      newsletter.stop();
      await newsletter.drain();
      await store.close();
    }
  });
});
