import fs from 'node:fs';
import path from 'node:path';
import { Database } from '@/lib/services/store/sqlite-database';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openRedisStore } from '@/lib/services/store/redis';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { hashToken } from '@/lib/services/tokens';
import { freshAddress, postForm, postJson, request } from '../support/client';
import { flushRedis, testRedisUrl } from '../support/redis';
import { sqliteStoredData } from '../support/stored';
import { startSmtp, type ReceivedMail } from '../support/smtp';
import { contractSites } from '../support/contract-sites';
import { freePort, type RunningSite } from '../support/site';
import { until } from '../support/until';

const REDIS_DB = 4;
const startSiteWith = contractSites({ MAIL_POLL_MS: '200', MAIL_RETRY_BASE_MS: '200', SUPPORT_EMAIL: 'owner@example.com' });
const site = (extraEnv: Record<string, string> = {}) => startSiteWith({ extraEnv });

const linkIn = (text: string | undefined, pathname: string) =>
  new RegExp(`https?://[^\\s"<>]+${pathname.replace(/\//g, '\\/')}\\?token=[\\w-]+`).exec(text ?? '')?.[0];
/** A link's path and query, to request it from the server under test (links carry SITE_URL). */
const local = (link: string) => new URL(link).pathname + new URL(link).search;
/** A plain HTML form posting to `action`: it works without JavaScript. */
const postsTo = (action: string) => new RegExp(`<form [^>]*action="${action}" method="post"`);
const header = (mail: ReceivedMail, name: string) => mail.headers.find((entry) => entry.key === name)?.value;
const DAY = 24 * 60 * 60 * 1000;

/** What a test reads and changes in the store of the server under test, directly. */
type StoreProbe = {
  status: (email: string) => Promise<string | undefined>;
  /** Moves the address's confirmation token back in time, as if mailed that long ago. */
  age: (email: string, ms: number) => Promise<void>;
  /** Every stored value except the outbox (which holds the mail as sent until it is purged). */
  everythingButMail: () => Promise<string>;
  close: () => Promise<void>;
};

function sqliteProbe(dataDir: string): StoreProbe {
  const db = new Database(path.join(dataDir, 'lectern.db'));
  return {
    status: async (email) => db.prepare<[string], { status: string }>('SELECT status FROM subscribers WHERE email = ?').get(email)?.status,
    age: async (email, ms) => void db.prepare('UPDATE subscribers SET confirm_token_at = confirm_token_at - ? WHERE email = ?').run(ms, email),
    everythingButMail: async () =>
      db
        .prepare<[], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'outbox'`)
        .all()
        .flatMap(({ name }) => db.prepare(`SELECT * FROM "${name}"`).all())
        .map((row) => JSON.stringify(row))
        .join('\n'),
    close: async () => void db.close(),
  };
}

async function redisProbe(url: string): Promise<StoreProbe> {
  const client = createClient({ url });
  await client.connect();
  const key = (email: string) => `lectern:store:subscriber:${email}`;
  return {
    status: async (email) => (await client.hGet(key(email), 'status')) ?? undefined,
    age: async (email, ms) => void (await client.hSet(key(email), 'confirmAt', String(Number(await client.hGet(key(email), 'confirmAt')) - ms))),
    everythingButMail: async () => {
      const keys = (await client.keys('lectern:store:*')).filter((name) => !name.startsWith('lectern:store:mail:'));
      const values = await Promise.all(
        keys.map(async (name) => {
          const type = await client.type(name);
          return type === 'hash' ? JSON.stringify(await client.hGetAll(name)) : type === 'string' ? await client.get(name) : type;
        }),
      );
      return [...keys, ...values].join('\n');
    },
    close: async () => void (await client.quit()),
  };
}

const backends = [
  { name: 'SQLite', env: async (): Promise<Record<string, string>> => ({}), probe: async (running: RunningSite) => sqliteProbe(running.dataDir) },
  {
    name: 'Redis',
    env: async (): Promise<Record<string, string>> => {
      await flushRedis(testRedisUrl(REDIS_DB_LINKS));
      return { REDIS_URL: testRedisUrl(REDIS_DB_LINKS) };
    },
    probe: async () => redisProbe(testRedisUrl(REDIS_DB_LINKS)),
  },
];
const REDIS_DB_LINKS = 5;

describe.each(backends)('newsletter links on $name: opening one changes nothing, posting does', ({ env, probe: openProbe }) => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let running: RunningSite;
  let probe: StoreProbe;
  beforeAll(async () => {
    smtp = await startSmtp();
    running = await site({ SMTP_URL: smtp.url, ...(await env()) });
    probe = await openProbe(running);
  });
  afterAll(async () => {
    await probe?.close();
    await smtp?.close();
  });

  const ownOrigin = () => ({ Origin: new URL(inject('siteUrl')).origin });
  async function subscribed(label: string) {
    const email = `${label}-${Date.now()}@example.com`;
    expect((await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() })).status).toBe(202);
    const mail = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    const confirm = linkIn(mail.text, '/subscribe/confirm');
    expect(confirm).toBeDefined();
    return { email, mail, confirm: confirm!, token: new URL(confirm!).searchParams.get('token')! };
  }
  async function confirmed(label: string) {
    const subscriber = await subscribed(label);
    expect(
      (await postForm(running.baseUrl, '/api/subscribe/confirm', { token: subscriber.token }, { from: freshAddress(), headers: ownOrigin() })).status,
    ).toBe(303);
    expect(await probe.status(subscriber.email)).toBe('confirmed');
    return subscriber;
  }

  it('a HEAD or GET of the confirmation link (what link scanners send) confirms nothing; the button on the page does, once', async () => {
    const { email, confirm, token } = await subscribed('scanned');
    expect((await request(running.baseUrl, local(confirm), { method: 'HEAD' })).status).toBe(200);
    const page = await request(running.baseUrl, local(confirm));
    expect(page.status).toBe(200);
    expect(page.body).toMatch(postsTo('/api/subscribe/confirm'));
    expect(page.body).toContain(`name="token" value="${token}"`);
    expect(await probe.status(email)).toBe('pending');

    const confirmation = await postForm(running.baseUrl, '/api/subscribe/confirm', { token }, { from: freshAddress(), headers: ownOrigin() });
    expect(confirmation.status).toBe(303);
    expect(confirmation.headers.location).toBe('/subscribe/confirmed');
    expect(await probe.status(email)).toBe('confirmed');
    expect((await request(running.baseUrl, '/subscribe/confirmed')).body).toContain('Subscription confirmed');

    const again = await postForm(running.baseUrl, '/api/subscribe/confirm', { token }, { from: freshAddress(), headers: ownOrigin() });
    expect(again.status).toBe(404);
    expect(again.body).toContain('This link does not work');
    expect((await request(running.baseUrl, local(confirm))).body).toContain('This link does not work');
    const crossSite = await postForm(
      running.baseUrl,
      '/api/subscribe/confirm',
      { token },
      { from: freshAddress(), headers: { Origin: 'https://evil.example' } },
    );
    expect(crossSite.status).toBe(403);
  });

  it('an expired confirmation link shows a page that says to subscribe again, and its post changes nothing', async () => {
    const { email, confirm, token } = await subscribed('expired');
    await probe.age(email, 7 * DAY + 60_000);
    const page = await request(running.baseUrl, local(confirm));
    expect(page.status).toBe(200);
    expect(page.body).toContain('This link has expired');
    expect(page.body).toContain('subscribe again');
    expect(page.body).not.toMatch(postsTo('/api/subscribe/confirm'));
    const form = await postForm(running.baseUrl, '/api/subscribe/confirm', { token }, { from: freshAddress(), headers: ownOrigin() });
    expect(form.status).toBe(410);
    expect(form.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(form.body).toContain('Subscribe again to get a new one.');
    const json = await postJson(running.baseUrl, '/api/subscribe/confirm', { token }, { from: freshAddress() });
    expect(json.status).toBe(410);
    expect(json.json()).toMatchObject({ status: 410, detail: expect.stringContaining('expired') });
    expect(await probe.status(email)).toBe('pending');
  });

  it('every newsletter mail carries RFC 8058 one-click unsubscribe, and opening its links changes nothing', async () => {
    const { email, mail } = await confirmed('opened');
    const oneClick = /^<(.+)>$/.exec(header(mail, 'list-unsubscribe') ?? '')?.[1];
    expect(oneClick).toMatch(new RegExp(`^${inject('siteUrl')}/api/subscribe/unsubscribe\\?token=[\\w-]{43}$`));
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    const page = linkIn(mail.text, '/subscribe/unsubscribe');
    expect(new URL(page!).searchParams.get('token')).toBe(new URL(oneClick!).searchParams.get('token'));

    for (const method of ['HEAD', 'GET']) {
      expect((await request(running.baseUrl, local(page!), { method, from: freshAddress() })).status).toBe(200);
      const opened = await request(running.baseUrl, local(oneClick!), { method, from: freshAddress() });
      expect(opened.status).toBe(303);
      expect(opened.headers.location).toBe(local(page!));
    }
    expect((await request(running.baseUrl, local(page!))).body).toMatch(postsTo('/api/subscribe/unsubscribe'));
    expect(await probe.status(email)).toBe('confirmed');
  });

  it('a one-click POST (urlencoded or multipart, no cookies, no Origin) unsubscribes and is answered without a redirect', async () => {
    const bodies = [
      { type: 'application/x-www-form-urlencoded', body: 'List-Unsubscribe=One-Click' },
      {
        type: 'multipart/form-data; boundary=lectern-test-boundary',
        body: '--lectern-test-boundary\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--lectern-test-boundary--\r\n',
      },
    ];
    for (const { type, body } of bodies) {
      const { email, mail } = await confirmed('one-click');
      const oneClick = /^<(.+)>$/.exec(header(mail, 'list-unsubscribe') ?? '')![1]!;
      const response = await request(running.baseUrl, local(oneClick), {
        method: 'POST',
        from: freshAddress(),
        headers: { 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)) },
        body,
      });
      expect(response.status, type).toBe(200);
      expect(response.headers.location).toBeUndefined();
      expect(response.json()).toMatchObject({ status: 'unsubscribed' });
      expect(await probe.status(email)).toBe('unsubscribed');
    }
  });

  it("the unsubscribe page's button unsubscribes, and the token is stored only hashed", async () => {
    const { email, mail } = await confirmed('button');
    const token = new URL(linkIn(mail.text, '/subscribe/unsubscribe')!).searchParams.get('token')!;
    const stored = await probe.everythingButMail();
    expect(stored).toContain(hashToken(token));
    expect(stored).not.toContain(token);
    const response = await postForm(running.baseUrl, '/api/subscribe/unsubscribe', { token }, { from: freshAddress(), headers: ownOrigin() });
    expect(response.status).toBe(303);
    expect(response.headers.location).toBe('/subscribe/unsubscribed');
    expect(await probe.status(email)).toBe('unsubscribed');
    expect((await request(running.baseUrl, '/subscribe/unsubscribed')).body).toContain('Unsubscribed');
    const unknown = await postJson(running.baseUrl, '/api/subscribe/unsubscribe', { token: 'x'.repeat(43) }, { from: freshAddress() });
    expect(unknown.status).toBe(404);
  });
});

describe('newsletter and support with real mail', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let running: RunningSite;
  beforeAll(async () => {
    smtp = await startSmtp();
    running = await site({ SMTP_URL: smtp.url });
  });
  afterAll(async () => smtp.close());

  it('subscribes with double opt-in: a confirmation mail with the confirm link and the unsubscribe links', async () => {
    const email = `new-${Date.now()}@example.com`;
    const response = await postJson(running.baseUrl, '/api/subscribe', { email, name: 'Ada' }, { from: freshAddress() });
    expect(response.status).toBe(202);
    const mail = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    expect(mail.subject).toBe('Confirm your subscription to Fixture & Co');
    expect(mail.from?.address).toBe('no-reply@127.0.0.1');
    expect(header(mail, 'list-unsubscribe')).toMatch(/\/api\/subscribe\/unsubscribe\?token=/);
    const confirm = linkIn(mail.text, '/subscribe/confirm');
    expect(confirm).toBeDefined();
    expect(linkIn(mail.text, '/subscribe/unsubscribe')).toBeDefined();
    expect(mail.html).toContain(confirm!.replace(/&/g, '&amp;'));
    const store = openSqliteStore(path.join(running.dataDir, 'lectern.db'));
    expect((await store.subscribers.list()).find((subscriber) => subscriber.email === email)?.status).toBe('pending');
    await store.close();
  });

  it('answers the same for a new, a pending and a confirmed address', async () => {
    const email = `same-${Date.now()}@example.com`;
    const first = await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() });
    const pending = await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() });
    const mail = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    const token = new URL(linkIn(mail.text, '/subscribe/confirm')!).searchParams.get('token')!;
    expect((await postJson(running.baseUrl, '/api/subscribe/confirm', { token }, { from: freshAddress() })).status).toBe(200);
    const confirmed = await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() });
    expect([first.status, pending.status, confirmed.status]).toEqual([202, 202, 202]);
    expect(pending.body).toBe(first.body);
    expect(confirmed.body).toBe(first.body);
  });

  it('mails an address one confirmation however many clients ask for it, with the typed name nowhere, and its link keeps working', async () => {
    const email = `victim-${Date.now()}@example.com`;
    const name = 'URGENT: your account is locked, call +1 555 0100 or visit evil.example';
    const clients = Array.from({ length: 20 }, () => freshAddress());
    const answers = await Promise.all(
      clients.flatMap((from) => Array.from({ length: 6 }, () => postJson(running.baseUrl, '/api/subscribe', { email, name }, { from }))),
    );
    const accepted = answers.filter((answer) => answer.status === 202);
    // Each client's own limit (5 in 10 minutes) still refuses its sixth.
    expect(accepted).toHaveLength(100);
    expect(new Set(accepted.map((answer) => answer.body)).size).toBe(1);
    // Everything was queued before the answers: the outbox holds what will ever be sent for them.
    const db = new Database(path.join(running.dataDir, 'lectern.db'), { readonly: true });
    const queued = db
      .prepare<[], { mail: string }>('SELECT mail FROM outbox')
      .all()
      .filter((row) => (JSON.parse(row.mail) as { to: { address: string } }).to.address === email);
    db.close();
    expect(queued).toHaveLength(1);
    const mail = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    expect(mail.to).toEqual([{ address: email, name: '' }]);
    expect(mail.raw).not.toContain('evil.example');
    expect(mail.raw).not.toContain('URGENT');
    // A form post of the same address is answered as always, and changes nothing.
    const form = await postForm(running.baseUrl, '/api/subscribe', { email, name }, { from: freshAddress() });
    expect(form.status).toBe(303);
    expect(form.headers.location).toBe('/subscribe/check-your-inbox');
    const token = new URL(linkIn(mail.text, '/subscribe/confirm')!).searchParams.get('token')!;
    expect((await postJson(running.baseUrl, '/api/subscribe/confirm', { token }, { from: freshAddress() })).status).toBe(200);
    expect(smtp.messages.filter((message) => message.envelopeTo.includes(email))).toHaveLength(1);
  });

  it('stores a support message and mails the owner everything, with Reply-To the sender', async () => {
    const email = `asker-${Date.now()}@example.com`;
    const response = await postJson(
      running.baseUrl,
      '/api/support',
      { name: 'Grace Hopper', email, subject: 'Training dates', message: 'Is there a session in March?\nThanks!' },
      { from: freshAddress() },
    );
    expect(response.status).toBe(202);
    const { id } = response.json() as { id: string };
    const owner = await smtp.waitFor((message) => message.envelopeTo.includes('owner@example.com') && (message.text ?? '').includes(id));
    expect(owner.subject).toBe('[Support] Training dates');
    expect(owner.replyTo?.[0]).toMatchObject({ name: 'Grace Hopper', address: email });
    expect(owner.text).toContain('Is there a session in March?');
    const stored = sqliteStoredData(path.join(running.dataDir, 'lectern.db'));
    expect((await stored.supportMessages()).find((message) => message.id === id)).toMatchObject({ name: 'Grace Hopper', email, subject: 'Training dates' });
    await stored.close();
  });

  it("sends the sender a receipt with none of the sender's words, so the form cannot mail anyone a text of one's choosing", async () => {
    const email = `target-${Date.now()}@example.com`;
    const words = {
      name: 'Zebulon Quarrington',
      subject: 'Claim your prize at prize.example',
      message: 'Your account is locked: log in at phish.example to unlock it.',
    };
    const response = await postJson(running.baseUrl, '/api/support', { ...words, email }, { from: freshAddress() });
    expect(response.status).toBe(202);
    const { id } = response.json() as { id: string };
    const receipt = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    const everything = [
      receipt.subject,
      receipt.text,
      receipt.html,
      ...(receipt.to ?? []).map((to) => `${to.name} ${to.address}`),
      ...receipt.headers.map((entry) => entry.value),
    ].join('\n');
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
    const multiline = await postJson(
      running.baseUrl,
      '/api/support',
      { name: 'Eve', email: 'eve@example.com', subject: 'Body lines', message: 'Bcc: victim@example.com\r\nTo: other@example.com' },
      { from: freshAddress() },
    );
    expect(multiline.status).toBe(202);
    const owner = await smtp.waitFor((message) => message.subject === '[Support] Body lines');
    expect(owner.envelopeTo).toEqual(['owner@example.com']);
    expect(smtp.messages.some((message) => message.envelopeTo.includes('victim@example.com'))).toBe(false);
  });

  it('answers a form post without JavaScript with 303 to its result page', async () => {
    const subscribe = await postForm(running.baseUrl, '/api/subscribe', { email: `form-${Date.now()}@example.com`, name: '' }, { from: freshAddress() });
    expect(subscribe.status).toBe(303);
    expect(subscribe.headers.location).toBe('/subscribe/check-your-inbox');
    const support = await postForm(
      running.baseUrl,
      '/api/support',
      { name: 'N', email: 'n@example.com', subject: 'S', message: 'M' },
      { from: freshAddress() },
    );
    expect(support.status).toBe(303);
    expect(support.headers.location).toBe('/support/sent');
    for (const page of ['/subscribe/check-your-inbox', '/support/sent', '/support']) expect((await request(running.baseUrl, page)).status).toBe(200);
  });
});

describe('mail retention', () => {
  it('deletes sent mail once it is older than MAIL_RETENTION_DAYS (0: as soon as it is sent)', async () => {
    const smtp = await startSmtp();
    try {
      const running = await site({ SMTP_URL: smtp.url, MAIL_RETENTION_DAYS: '0' });
      const email = `kept-not-${Date.now()}@example.com`;
      expect((await postJson(running.baseUrl, '/api/subscribe', { email }, { from: freshAddress() })).status).toBe(202);
      await smtp.waitFor((message) => message.envelopeTo.includes(email));
      const db = new Database(path.join(running.dataDir, 'lectern.db'), { readonly: true });
      try {
        const count = () => (db.prepare('SELECT COUNT(*) AS n FROM outbox').get() as { n: number }).n;
        // Purged on a later poll of the mail worker (every 200 ms here); the subscription itself stays.
        while (count() > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        expect(db.prepare('SELECT status FROM subscribers WHERE email = ?').get(email)).toEqual({ status: 'pending' });
      } finally {
        db.close();
      }
    } finally {
      await smtp.close();
    }
  });

  it('refuses to start with a retention that is not a whole number of days', async () => {
    await expect(site({ MAIL_RETENTION_DAYS: 'a month' })).rejects.toThrow(/MAIL_RETENTION_DAYS: must be a whole number of days/);
  });
});

describe('mail without SMTP', () => {
  it('is written to the outbox folder as a readable .eml file', async () => {
    const running = await site();
    const response = await postJson(
      running.baseUrl,
      '/api/support',
      { name: 'N', email: 'n@example.com', subject: 'Outbox check', message: 'M' },
      { from: freshAddress() },
    );
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
    await until(() => /mail: sending failed/.test(running.output()), 'the first failed attempt to be logged');
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
    const stored = new Set((await store.subscribers.list()).map((subscriber) => subscriber.email));
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
    const stored = new Set((await store.subscribers.list()).map((subscriber) => subscriber.email));
    for (const email of emails) expect(stored.has(email)).toBe(true);
    await store.close();
  });
});
