import fs from 'node:fs';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openRedisStore } from '@/lib/services/store/redis';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { freshAddress, postForm, postJson, request } from '../support/client';
import { flushRedis, testRedisUrl } from '../support/redis';
import { startSmtp, type ReceivedMail } from '../support/smtp';
import { freePort, startSite, type RunningSite } from '../support/site';

const REDIS_DB = 4;
const sites: RunningSite[] = [];
async function site(extraEnv: Record<string, string> = {}): Promise<RunningSite> {
  const started = await startSite({ contentDir: inject('contentDir'), distDir: inject('distDir'), siteUrl: inject('siteUrl'), port: await freePort(), extraEnv: { MAIL_POLL_MS: '200', MAIL_RETRY_BASE_MS: '200', SUPPORT_EMAIL: 'owner@example.com', ...extraEnv } });
  sites.push(started);
  return started;
}
afterAll(async () => {
  await Promise.all(sites.map((running) => running.stop()));
});

const linkIn = (text: string | undefined, pathname: string) => new RegExp(`https?://[^\\s"<>]+${pathname.replace(/\//g, '\\/')}\\?token=[\\w-]+`).exec(text ?? '')?.[0];

describe('newsletter and support with real mail', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let running: RunningSite;
  beforeAll(async () => {
    smtp = await startSmtp();
    running = await site({ SMTP_URL: smtp.url });
  });
  afterAll(async () => smtp.close());

  it('subscribes with double opt-in: confirmation mail, confirm link, unsubscribe link', async () => {
    const email = `new-${Date.now()}@example.com`;
    const response = await postJson(running.baseUrl, '/api/subscribe', { email, name: 'Ada' }, { from: freshAddress() });
    expect(response.status).toBe(202);
    const mail = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    expect(mail.subject).toBe('Confirm your subscription to Fixture & Co');
    expect(mail.from?.address).toBe('no-reply@127.0.0.1');
    expect(mail.headers.find((header) => header.key === 'list-unsubscribe')?.value).toMatch(/\/subscribe\/unsubscribe\?token=/);
    const confirm = linkIn(mail.text, '/subscribe/confirm');
    const unsubscribe = linkIn(mail.text, '/subscribe/unsubscribe');
    expect(confirm).toBeDefined();
    expect(mail.html).toContain(confirm!.replace(/&/g, '&amp;'));
    const confirmPage = await request(running.baseUrl, new URL(confirm!).pathname + new URL(confirm!).search);
    expect(confirmPage.status).toBe(200);
    expect(confirmPage.body).toContain('Subscription confirmed');
    const again = await request(running.baseUrl, new URL(confirm!).pathname + new URL(confirm!).search);
    expect(again.body).toContain('This link does not work');
    const unsubscribePage = await request(running.baseUrl, new URL(unsubscribe!).pathname + new URL(unsubscribe!).search);
    expect(unsubscribePage.body).toContain('Unsubscribed');
    const store = openSqliteStore(path.join(running.dataDir, 'lectern.db'));
    expect((await store.subscriber(email))?.status).toBe('unsubscribed');
    await store.close();
  });

  it('answers the same for a new, a pending and a confirmed address', async () => {
    const email = `same-${Date.now()}@example.com`;
    const first = await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() });
    const pending = await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() });
    const mails: ReceivedMail[] = [];
    for (;;) {
      mails.splice(0, mails.length, ...smtp.messages.filter((message) => message.envelopeTo.includes(email)));
      if (mails.length >= 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const confirm = linkIn(mails[1]?.text, '/subscribe/confirm')!;
    expect((await request(running.baseUrl, new URL(confirm).pathname + new URL(confirm).search)).body).toContain('Subscription confirmed');
    const confirmed = await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() });
    expect([first.status, pending.status, confirmed.status]).toEqual([202, 202, 202]);
    expect(pending.body).toBe(first.body);
    expect(confirmed.body).toBe(first.body);
  });

  it('stores a support message and mails the owner everything, with Reply-To the sender', async () => {
    const email = `asker-${Date.now()}@example.com`;
    const response = await postJson(running.baseUrl, '/api/support', { name: 'Grace Hopper', email, subject: 'Training dates', message: 'Is there a session in March?\nThanks!' }, { from: freshAddress() });
    expect(response.status).toBe(202);
    const { id } = response.json() as { id: string };
    const owner = await smtp.waitFor((message) => message.envelopeTo.includes('owner@example.com') && (message.text ?? '').includes(id));
    expect(owner.subject).toBe('[Support] Training dates');
    expect(owner.replyTo?.[0]).toMatchObject({ name: 'Grace Hopper', address: email });
    expect(owner.text).toContain('Is there a session in March?');
    const store = openSqliteStore(path.join(running.dataDir, 'lectern.db'));
    expect((await store.supportMessages()).find((message) => message.id === id)).toMatchObject({ name: 'Grace Hopper', email, subject: 'Training dates' });
    await store.close();
  });

  it("sends the sender a receipt with none of the sender's words, so the form cannot mail anyone a text of one's choosing", async () => {
    const email = `target-${Date.now()}@example.com`;
    const words = { name: 'Zebulon Quarrington', subject: 'Claim your prize at prize.example', message: 'Your account is locked: log in at phish.example to unlock it.' };
    const response = await postJson(running.baseUrl, '/api/support', { ...words, email }, { from: freshAddress() });
    expect(response.status).toBe(202);
    const { id } = response.json() as { id: string };
    const receipt = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    const everything = [receipt.subject, receipt.text, receipt.html, ...(receipt.to ?? []).map((to) => `${to.name} ${to.address}`), ...receipt.headers.map((entry) => entry.value)].join('\n');
    for (const value of Object.values(words)) expect(everything).not.toContain(value);
    for (const part of ['Zebulon', 'prize.example', 'phish.example']) expect(everything).not.toContain(part);
    expect(receipt.subject).toBe('We received your message to Fixture & Co');
    expect(receipt.text).toContain(id);

    const owner = await smtp.waitFor((message) => message.envelopeTo.includes('owner@example.com') && (message.text ?? '').includes(id));
    expect(owner.subject).toBe(`[Support] ${words.subject}`);
    expect(owner.replyTo?.[0]).toMatchObject({ name: words.name, address: email });
    for (const value of Object.values(words)) expect(`${owner.subject}\n${owner.text}`).toContain(value);
  });

  it('makes header injection impossible through any field', async () => {
    const attempts = [
      { name: 'Eve\r\nBcc: victim@example.com', email: 'eve@example.com', subject: 'Hi', message: 'x' },
      { name: 'Eve', email: 'eve@example.com\r\nBcc: victim@example.com', subject: 'Hi', message: 'x' },
      { name: 'Eve', email: 'eve@example.com', subject: 'Hi\nBcc: victim@example.com', message: 'x' },
    ];
    for (const body of attempts) expect((await postJson(running.baseUrl, '/api/support', body, { from: freshAddress() })).status).toBe(400);
    const multiline = await postJson(running.baseUrl, '/api/support', { name: 'Eve', email: 'eve@example.com', subject: 'Body lines', message: 'Bcc: victim@example.com\r\nTo: other@example.com' }, { from: freshAddress() });
    expect(multiline.status).toBe(202);
    const owner = await smtp.waitFor((message) => message.subject === '[Support] Body lines');
    expect(owner.envelopeTo).toEqual(['owner@example.com']);
    expect(smtp.messages.some((message) => message.envelopeTo.includes('victim@example.com'))).toBe(false);
  });

  it('answers a form post without JavaScript with 303 to its result page', async () => {
    const subscribe = await postForm(running.baseUrl, '/api/subscribe', { email: `form-${Date.now()}@example.com`, name: '' }, { from: freshAddress() });
    expect(subscribe.status).toBe(303);
    expect(subscribe.headers.location).toBe('/subscribe/check-your-inbox');
    const support = await postForm(running.baseUrl, '/api/support', { name: 'N', email: 'n@example.com', subject: 'S', message: 'M' }, { from: freshAddress() });
    expect(support.status).toBe(303);
    expect(support.headers.location).toBe('/support/sent');
    for (const page of ['/subscribe/check-your-inbox', '/support/sent', '/support']) expect((await request(running.baseUrl, page)).status).toBe(200);
  });
});

describe('mail without SMTP', () => {
  it('is written to the outbox folder as a readable .eml file', async () => {
    const running = await site();
    const response = await postJson(running.baseUrl, '/api/support', { name: 'N', email: 'n@example.com', subject: 'Outbox check', message: 'M' }, { from: freshAddress() });
    expect(response.status).toBe(202);
    const folder = path.join(running.dataDir, 'outbox');
    let files: string[] = [];
    while (files.length < 2) {
      files = fs.existsSync(folder) ? fs.readdirSync(folder).filter((name) => name.endsWith('.eml')) : [];
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const contents = files.map((name) => fs.readFileSync(path.join(folder, name), 'utf8'));
    expect(contents.some((text) => /^Subject: \[Support\] Outbox check$/m.test(text))).toBe(true);
  });
});

describe('a mail server that is down', () => {
  it('delays mail and loses none: it arrives after retries, exactly once', async () => {
    const port = await freePort();
    const running = await site({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    const email = `later-${Date.now()}@example.com`;
    expect((await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() })).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(running.output()).toMatch(/mail: sending failed/);
    const smtp = await startSmtp(port);
    try {
      await smtp.waitFor((message) => message.envelopeTo.includes(email));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(smtp.messages.filter((message) => message.envelopeTo.includes(email))).toHaveLength(1);
    } finally {
      await smtp.close();
    }
  });
});

describe('a crash right after answering', () => {
  async function burst(running: RunningSite, count: number): Promise<string[]> {
    const emails = Array.from({ length: count }, (_, index) => `burst-${index}-${Date.now()}@example.com`);
    const responses = await Promise.all(emails.map((email) => postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() })));
    expect(responses.map((response) => response.status)).toEqual(emails.map(() => 202));
    await running.kill();
    return emails;
  }

  it('keeps every accepted submission in SQLite', async () => {
    const running = await site();
    const emails = await burst(running, 20);
    const restarted = await site({ DATA_DIR: running.dataDir });
    const store = openSqliteStore(path.join(restarted.dataDir, 'lectern.db'));
    const stored = new Set((await store.subscribers()).map((subscriber) => subscriber.email));
    for (const email of emails) expect(stored.has(email)).toBe(true);
    await store.close();
  });

  it('keeps every accepted submission in Redis', async () => {
    await flushRedis(testRedisUrl(REDIS_DB));
    const running = await site({ REDIS_URL: testRedisUrl(REDIS_DB) });
    const emails = await burst(running, 20);
    await site({ REDIS_URL: testRedisUrl(REDIS_DB) });
    const client = createClient({ url: testRedisUrl(REDIS_DB) });
    await client.connect();
    const store = openRedisStore({ eval: (script, keys, args) => client.eval(script, { keys, arguments: args }) }, async () => void (await client.quit()));
    const stored = new Set((await store.subscribers()).map((subscriber) => subscriber.email));
    for (const email of emails) expect(stored.has(email)).toBe(true);
    await store.close();
  });
});
