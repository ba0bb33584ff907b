import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '@/lib/services/store/sqlite-database';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postForm, postJson, request } from '../support/client';
import { flushRedis, testRedisUrl } from '../support/redis';
import { buildSite, copyContractBuild, freePort, ROOT, startSite, type RunningSite } from '../support/site';
import { copies, FUTURE_POST_DUE, header, newsletterMail, seedRedis, seedSqlite } from '../support/newsletter';
import { startSmtp, type Refusal } from '../support/smtp';
import { until } from '../support/until';

/**
 * The newsletter against the built site and a real SMTP server. The contract
 * build (the fixture content) is the first deploy; a second build of the same
 * content with three more posts is the next deploy: two are mailed, one says
 * `newsletter: false`.
 */
const REDIS_DB = 8;
const NEXT_DIST = '.next-newsletter';
const NEW_POSTS = { news: 'Newsletter news', more: 'More news', quiet: 'Quiet news' };
const OLD_TITLES = ['Alpha post', 'Beta post', 'Gamma post'];
const FAST = {
  NEWSLETTER_CHECK_MS: '200',
  NEWSLETTER_RATE: '0',
  NEWSLETTER_LEASE_SECONDS: '5',
  MAIL_POLL_MS: '200',
  MAIL_RETRY_BASE_MS: '300',
};

const contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-newsletter-content-'));
const servers: RunningSite[] = [];

function writePost(slug: string, title: string, date: string, extra = '') {
  fs.writeFileSync(
    path.join(contentDir, 'posts', `${slug}.md`),
    `---\ntitle: ${title}\ndescription: A post published by a later deploy.\ndate: ${date}\n${extra}---\nA new post with [a link](/blog/alpha-post) and code:\n\n\`\`\`ts\nconst mailed = true;\n\`\`\`\n`,
  );
}

beforeAll(async () => {
  fs.cpSync(inject('contentDir'), contentDir, { recursive: true });
  writePost('newsletter-news', NEW_POSTS.news, '2026-01-10');
  writePost('more-news', NEW_POSTS.more, '2026-01-11');
  writePost('quiet-news', NEW_POSTS.quiet, '2026-01-12', 'newsletter: false\n');
  await buildSite({ contentDir, distDir: NEXT_DIST, siteUrl: inject('siteUrl'), extraEnv: { PRERENDER_POSTS: '2', PREWARM: '0' } });
}, 600_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  fs.rmSync(contentDir, { recursive: true, force: true });
});

/** The first deploy (the contract build) or the next one (the build with the new posts), with settings of its own. */
async function deploy(which: 'first' | 'next', extraEnv: Record<string, string>): Promise<RunningSite> {
  const server = await startSite({
    ...(which === 'first' ? { contentDir: inject('contentDir'), distDir: inject('distDir') } : { contentDir, distDir: NEXT_DIST }),
    siteUrl: inject('siteUrl'),
    port: await freePort(),
    extraEnv: { ...FAST, PREWARM: '0', ...extraEnv },
  });
  servers.push(server);
  return server;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A link's path and query, to send it to the server under test (links carry SITE_URL). */
const local = (link: string) => new URL(link).pathname + new URL(link).search;
/** Both sends of the next deploy finished in this server's log (the one delayed by a retry or a lease may end last). */
const bothDone = (server: RunningSite) => ['newsletter-news', 'more-news'].every((slug) => server.output().includes(`"${slug}" done`));
const firstStarted = (server: RunningSite) => until(() => server.output().includes('newsletter: first run'), 'the first run');

describe('the newsletter on SQLite, through the real subscription flow', () => {
  const refusals = new Map<string, Refusal[]>();
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let dataDir: string;
  let db: Database;
  const status = (email: string) => db.prepare<[string], { status: string }>('SELECT status FROM subscribers WHERE email = ?').get(email)?.status;
  const mailsOf = (subject: string) => smtp.messages.filter((mail) => mail.subject === subject);

  beforeAll(async () => {
    smtp = await startSmtp(undefined, { refuse: (address) => refusals.get(address)?.shift() });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-newsletter-data-'));
    // The first deploy: its posts are the baseline; the readers subscribe on it.
    const first = await deploy('first', { SMTP_URL: smtp.url, DATA_DIR: dataDir });
    await firstStarted(first);
    const origin = { Origin: new URL(inject('siteUrl')).origin };
    const subscribe = async (email: string) => {
      expect((await postJson(first.baseUrl, '/api/subscribe', { email, name: 'Reader' }, { from: freshAddress() })).status).toBe(202);
      const mail = await smtp.waitFor((message) => message.envelopeTo.includes(email));
      return /token=([\w-]+)/.exec(mail.text ?? '')?.[1] ?? '';
    };
    const confirm = async (email: string) => {
      const token = await subscribe(email);
      expect((await postForm(first.baseUrl, '/api/subscribe/confirm', { token }, { from: freshAddress(), headers: origin })).status).toBe(303);
    };
    for (const email of ['reader@example.com', 'later@example.com', 'gone@example.com', 'left@example.com']) await confirm(email);
    await subscribe('pending@example.com');
    // left@ leaves with the one-click address of its confirmation mail.
    const leaving = smtp.messages.find((mail) => mail.envelopeTo.includes('left@example.com'));
    const oneClick = /<([^>]+)>/.exec(header(leaving!, 'list-unsubscribe') ?? '')?.[1] ?? '';
    const left = await request(first.baseUrl, local(oneClick), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      from: freshAddress(),
    });
    expect(left.status).toBe(200);
    await first.stop();
    db = new Database(path.join(dataDir, 'lectern.db'));
    expect(status('left@example.com')).toBe('unsubscribed');

    // The next deploy: later@ is refused once for a while (4xx), gone@ always (5xx).
    refusals.set('later@example.com', [{ code: 451, message: '4.7.1 Try again later' }]);
    refusals.set('gone@example.com', [
      { code: 550, message: '5.1.1 No such user' },
      { code: 550, message: '5.1.1 No such user' },
    ]);
    const next = await deploy('next', { SMTP_URL: smtp.url, DATA_DIR: dataDir });
    await until(() => bothDone(next), 'both sends to finish', 30_000);
    await next.stop();
  }, 120_000);

  afterAll(async () => {
    db?.close();
    await smtp?.close();
  });

  it('mails a post added by a new deploy once to each confirmed subscriber, and nobody pending or unsubscribed', () => {
    for (const subject of [NEW_POSTS.news, NEW_POSTS.more]) {
      expect(
        mailsOf(subject)
          .map((mail) => mail.envelopeTo.join())
          .sort(),
      ).toEqual(['later@example.com', 'reader@example.com']);
    }
  });

  it('mails none of the posts that were published before, nor a post marked newsletter: false', () => {
    const subjects = new Set(smtp.messages.filter(newsletterMail).map((mail) => mail.subject));
    expect([...subjects].sort()).toEqual([NEW_POSTS.more, NEW_POSTS.news].sort());
    for (const title of [...OLD_TITLES, NEW_POSTS.quiet]) expect(mailsOf(title)).toEqual([]);
  });

  it('sends a plain and an HTML part made for mail clients, with the post and markdown links, the site as sender and the list headers', () => {
    const mail = mailsOf(NEW_POSTS.news).find((message) => message.envelopeTo.includes('reader@example.com'))!;
    const siteUrl = inject('siteUrl');
    expect(mail.from).toMatchObject({ name: 'Fixture & Co' });
    // The address alone: the name typed when subscribing never goes into a header.
    expect(mail.raw).toMatch(/^To: reader@example\.com\r?$/m);
    for (const part of [mail.text ?? '', mail.html ?? '']) {
      expect(part).toContain(`${siteUrl}/blog/newsletter-news`);
      expect(part).toContain(`${siteUrl}/blog/newsletter-news.md`);
      expect(part).toContain(`${siteUrl}/blog/alpha-post`);
    }
    expect(mail.html).toMatch(/<pre[^>]*style="[^"]*background/);
    expect(mail.html).not.toMatch(/<script/i);
    expect(mail.text).toContain('const mailed = true;');
    expect(header(mail, 'list-unsubscribe')).toMatch(new RegExp(`^<${siteUrl}/api/subscribe/unsubscribe\\?token=[\\w-]+>$`));
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(header(mail, 'list-id')).toBe(`Fixture & Co <newsletter.${new URL(siteUrl).hostname}>`);
    expect(mail.messageId).toMatch(/^<newsletter-news\.[\w-]{24}@/);
  });

  it('gets a temporarily refused message through once, with the same Message-ID as any copy', () => {
    const later = mailsOf(NEW_POSTS.news).filter((mail) => mail.envelopeTo.includes('later@example.com'));
    expect(later).toHaveLength(1);
    expect(refusals.get('later@example.com')).toEqual([]);
  });

  it('records a permanent refusal and suspends the address after the second', () => {
    expect(smtp.messages.filter((mail) => mail.envelopeTo.includes('gone@example.com') && newsletterMail(mail))).toEqual([]);
    const rejection = db
      .prepare<[string], { count: number; last_error: string }>('SELECT count, last_error FROM newsletter_rejections WHERE email = ?')
      .get('gone@example.com');
    expect(rejection).toMatchObject({ count: 2 });
    expect(rejection?.last_error).toContain('No such user');
    const sends = db
      .prepare<[], { slug: string; status: string; n: number }>(
        'SELECT slug, status, COUNT(*) AS n FROM newsletter_deliveries GROUP BY slug, status ORDER BY slug, status',
      )
      .all();
    expect(sends).toEqual([
      { slug: 'more-news', status: 'failed', n: 1 },
      { slug: 'more-news', status: 'sent', n: 2 },
      { slug: 'newsletter-news', status: 'failed', n: 1 },
      { slug: 'newsletter-news', status: 'sent', n: 2 },
    ]);
  });

  it('sends nothing twice after a restart', async () => {
    const before = smtp.messages.length;
    const again = await deploy('next', { SMTP_URL: smtp.url, DATA_DIR: dataDir });
    await sleep(2000);
    expect(smtp.messages.length).toBe(before);
    await again.stop();
  });

  it("unsubscribes the reader with the mail's one-click address (RFC 8058)", async () => {
    const server = await deploy('next', { SMTP_URL: smtp.url, DATA_DIR: dataDir });
    const mail = mailsOf(NEW_POSTS.more).find((message) => message.envelopeTo.includes('reader@example.com'))!;
    const oneClick = /<([^>]+)>/.exec(header(mail, 'list-unsubscribe') ?? '')?.[1] ?? '';
    const response = await request(server.baseUrl, local(oneClick), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      from: freshAddress(),
    });
    expect(response.status).toBe(200);
    expect(status('reader@example.com')).toBe('unsubscribed');
    await server.stop();
  });
});

describe('the newsletter on one Redis with two instances', () => {
  const emails = Array.from({ length: 40 }, (_, index) => `reader${index}@example.com`);

  it('sends each message once between them', async () => {
    const url = testRedisUrl(REDIS_DB);
    await flushRedis(url);
    const smtp = await startSmtp();
    try {
      const first = await deploy('first', { SMTP_URL: smtp.url, REDIS_URL: url });
      await firstStarted(first);
      await first.stop();
      await seedRedis(url, emails);
      // Slow enough that both instances are sending at once.
      const env = { SMTP_URL: smtp.url, REDIS_URL: url, NEWSLETTER_RATE: '20' };
      const [one, two] = await Promise.all([deploy('next', env), deploy('next', env)]);
      await until(() => smtp.messages.filter(newsletterMail).length >= emails.length * 2, 'every message', 30_000);
      await sleep(1000);
      const { counts } = copies(smtp.messages);
      expect(counts.size).toBe(emails.length * 2);
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
      expect(`${one.output()}${two.output()}`).toMatch(/newsletter: sending "newsletter-news" to 40 subscribers/);
      await Promise.all([one.stop(), two.stop()]);
    } finally {
      await smtp.close();
    }
  }, 90_000);
});

describe('the newsletter killed mid-send', () => {
  const emails = Array.from({ length: 150 }, (_, index) => `reader${index}@example.com`);

  it('loses nothing: the next start finishes, and only a message in flight at the kill may come twice, with the same Message-ID', async () => {
    const smtp = await startSmtp();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-newsletter-kill-'));
    try {
      const first = await deploy('first', { SMTP_URL: smtp.url, DATA_DIR: dataDir });
      await firstStarted(first);
      await first.stop();
      seedSqlite(dataDir, emails);
      // 300 messages at 20 a second: 15 s, so the send is still under way once the server listens, however
      // long its start took (the newsletter starts sending before the search thread has built its index).
      const env = { SMTP_URL: smtp.url, DATA_DIR: dataDir, NEWSLETTER_RATE: '20' };
      const doomed = await deploy('next', env);
      await until(() => smtp.messages.length >= 60, 'the send to be under way');
      await doomed.kill();
      const atKill = smtp.messages.length;
      expect(atKill).toBeLessThan(emails.length * 2);
      const next = await deploy('next', env);
      // A send the killed server had finished is not finished again: each is done in one of the two logs.
      const done = (slug: string) => [doomed, next].some((server) => server.output().includes(`"${slug}" done`));
      await until(() => done('newsletter-news') && done('more-news'), 'both sends to finish', 60_000);
      const { counts, messageIds } = copies(smtp.messages);
      expect(counts.size).toBe(emails.length * 2);
      const repeated = [...counts.entries()].filter(([, count]) => count > 1);
      // At most one batch (a second at the rate) was claimed and not yet recorded as sent.
      expect(repeated.length).toBeLessThanOrEqual(20);
      for (const [key] of repeated) expect(messageIds.get(key)?.size).toBe(1);
      await next.stop();
    } finally {
      await smtp.close();
    }
  }, 120_000);
});

describe('the newsletter on a platform (next start, PLATFORM_MODE), sent by the cron calls of /api/publish', () => {
  const CRON_SECRET = 'cron-secret-for-the-newsletter-test';
  const BATCH = 3;
  const emails = Array.from({ length: 10 }, (_, index) => `reader${index}@example.com`);
  type Published = { newsletter?: { messages: number; more: boolean } };
  const cron = (site: RunningSite, authorization?: string) =>
    // The platform's edge overwrites x-real-ip with the client address (CLIENT_IP_HEADER): /api/publish is limited by it.
    fetch(`${site.baseUrl}/api/publish`, { headers: { 'x-real-ip': '203.0.113.51', ...(authorization ? { Authorization: authorization } : {}) } });
  const authorized = async (site: RunningSite): Promise<Published> => {
    const response = await cron(site, `Bearer ${CRON_SECRET}`);
    expect(response.status).toBe(200);
    return (await response.json()) as Published;
  };

  it('mails a post that went live to each confirmed subscriber once, in bounded batches, however calls overlap; a call without the secret sends nothing', async () => {
    const url = testRedisUrl(REDIS_DB);
    await flushRedis(url);
    await seedRedis(url, emails);
    const smtp = await startSmtp();
    // Next writes the lists it makes again into the build folder: this server gets a copy of its own.
    const copy = copyContractBuild(path.join(ROOT, inject('distDir')), 'newsletter-platform');
    let host: RunningSite | undefined;
    try {
      const due = Date.now() + 25_000;
      host = await startSite({
        contentDir: inject('contentDir'),
        distDir: path.relative(ROOT, copy),
        siteUrl: inject('siteUrl'),
        port: await freePort(),
        nextStart: true,
        extraEnv: {
          PLATFORM_MODE: '1',
          REDIS_URL: url,
          SMTP_URL: smtp.url,
          CLIENT_IP_HEADER: 'x-real-ip',
          CRON_SECRET,
          LECTERN_CLOCK_OFFSET_MS: String(FUTURE_POST_DUE - due),
          NEWSLETTER_BATCH_SIZE: String(BATCH),
          // Slow enough that the batches of the overlapping calls are on the wire together.
          NEWSLETTER_RATE: '20',
          // The contract build's settings (global-setup.ts): the pages it generated are made again with them.
          POSTS_PER_PAGE: '1',
          PRERENDER_POSTS: '2',
          PREWARM: '0',
        },
      });

      // The first call records the posts live now, and mails none of them.
      expect(await authorized(host)).toMatchObject({ newsletter: { messages: 0, more: false } });
      expect(Date.now()).toBeLessThan(due - 1_000);
      await sleep(due - Date.now() + 100);
      expect((await cron(host)).status).toBe(401);
      expect((await cron(host, 'Bearer not-the-secret')).status).toBe(401);
      await sleep(1_000);
      expect(smtp.messages).toEqual([]);

      // Two calls at once, as two minutes' calls may overlap: each sends at most a batch before it
      // answers, and the rest goes out in batches after the answers.
      const pair = await Promise.all([authorized(host), authorized(host)]);
      for (const published of pair) expect(published.newsletter?.messages).toBeLessThanOrEqual(BATCH);
      expect(pair.some((published) => published.newsletter?.more)).toBe(true);
      // No other call: what their batches left goes out in batches after their answers.
      await until(() => smtp.messages.length >= emails.length, 'every message', 20_000);
      await sleep(1_000);
      expect(await authorized(host)).toMatchObject({ newsletter: { messages: 0, more: false } });

      const { counts } = copies(smtp.messages);
      expect([...counts.keys()].sort()).toEqual(emails.map((email) => `Future post ${email}`).sort());
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
      const mail = smtp.messages[0]!;
      expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      expect(mail.text).toContain(`${inject('siteUrl')}/blog/future-post`);
      expect(host.output()).toContain('newsletter: sending "future-post" to 10 subscribers');
      expect(host.output()).toContain('newsletter: "future-post" done: 10 sent, 0 failed, 0 skipped');
    } finally {
      await host?.stop();
      await smtp.close();
      fs.rmSync(copy, { recursive: true, force: true });
    }
  }, 120_000);
});
