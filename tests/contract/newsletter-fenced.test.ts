import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { copies, FUTURE_POST_DUE, newsletterMail, seedRedis, seedSqlite } from '../support/newsletter';
import { startRedis } from '../support/redis';
import { copyContractBuild, freePort, ROOT, startSite, type RunningSite } from '../support/site';
import { startSmtp } from '../support/smtp';
import { until } from '../support/until';

/**
 * The newsletter's claims against a mail server slower than their lease. The contract build is
 * the deploy; its future-post (dated 2999-01-01) is the new post: a first start with the real
 * clock records the posts live then (future-post is not), and the starts after it run with their
 * clock set past the post's time (LECTERN_CLOCK_OFFSET_MS), so they find it published and mail it.
 * Each server that makes the post live runs on a copy of the build, as the scheduling test's do.
 */
const SUBJECT = 'Future post';
/** The shortest lease the settings allow; the relay answers each message later than that. */
const LEASE_SECONDS = 5;

const sites: RunningSite[] = [];
const builds: string[] = [];
afterAll(async () => {
  await Promise.all(sites.map((site) => site.stop()));
  for (const build of builds) fs.rmSync(build, { recursive: true, force: true });
});

/** A server of the contract build; `live`: on a copy of it, with its clock a minute past future-post's time. */
async function start(extraEnv: Record<string, string>, live: boolean): Promise<RunningSite> {
  let distDir = inject('distDir');
  if (live) {
    const copy = copyContractBuild(path.join(ROOT, inject('distDir')), 'newsletter-fenced');
    builds.push(copy);
    distDir = path.relative(ROOT, copy);
  }
  const site = await startSite({
    contentDir: inject('contentDir'),
    distDir,
    siteUrl: inject('siteUrl'),
    port: await freePort(),
    extraEnv: {
      ...(live ? { LECTERN_CLOCK_OFFSET_MS: String(FUTURE_POST_DUE + 60_000 - Date.now()) } : {}),
      NEWSLETTER_CHECK_MS: '200',
      NEWSLETTER_RATE: '0',
      NEWSLETTER_LEASE_SECONDS: String(LEASE_SECONDS),
      MAIL_POLL_MS: '200',
      PREWARM: '0',
      // The contract build's settings (global-setup.ts): the pages it generated are made again with them.
      POSTS_PER_PAGE: '1',
      PRERENDER_POSTS: '2',
      ...extraEnv,
    },
  });
  sites.push(site);
  return site;
}

/** The first run: the posts live now are recorded (and never mailed); future-post is not among them. */
async function recordBaseline(extraEnv: Record<string, string>): Promise<void> {
  const first = await start(extraEnv, false);
  await until(() => first.output().includes('newsletter: first run'), 'the first run');
  await first.stop();
}

const done = (site: RunningSite) => site.output().includes(`newsletter: "future-post" done`);
const mailed = (messages: Parameters<typeof copies>[0]) => messages.filter((mail) => newsletterMail(mail) && mail.subject === SUBJECT);

describe('the newsletter with a relay slower than the lease', () => {
  // As many as one instance claims in a batch, twice as many as its three connections send at once.
  const emails = Array.from({ length: 6 }, (_, index) => `reader${index}@example.com`);

  it('two instances on one Redis send each message once: the claim of a message on the wire is renewed, not taken over', async () => {
    const redis = await startRedis();
    const smtp = await startSmtp(undefined, { answerAfterMs: (LEASE_SECONDS + 2) * 1000 });
    try {
      const env = { REDIS_URL: redis.url, SMTP_URL: smtp.url };
      await recordBaseline(env);
      await seedRedis(redis.url, emails);
      const [one, two] = await Promise.all([start(env, true), start(env, true)]);
      await until(() => done(one) || done(two), 'the send to finish', 90_000);
      // Once both have stopped, nothing more can arrive.
      await Promise.all([one.stop(), two.stop()]);
      const { counts } = copies(mailed(smtp.messages));
      expect([...counts.keys()].sort()).toEqual(emails.map((email) => `${SUBJECT} ${email}`).sort());
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
      expect(`${one.output()}${two.output()}`).toContain('newsletter: "future-post" done: 6 sent, 0 failed, 0 skipped');
      expect(`${one.output()}${two.output()}`).not.toContain('another sender had claimed');
    } finally {
      await smtp.close();
      await redis.stop();
    }
  }, 180_000);

  it('SIGTERM during a slow send starts no new message; after the restart every reader has the message once', async () => {
    // Slow until the signal, so the send is still under way however long the start took; at once after it.
    let answerAfterMs = 4_000;
    const smtp = await startSmtp(undefined, { answerAfterMs: () => answerAfterMs });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-newsletter-fenced-'));
    // Five turns of the three connections.
    const readers = Array.from({ length: 15 }, (_, index) => `reader${index}@example.com`);
    try {
      // The grace for the services is longer than the relay takes to answer, shorter than two of its answers.
      const env = { SMTP_URL: smtp.url, DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '6000' };
      await recordBaseline(env);
      seedSqlite(dataDir, readers);
      const stopping = await start(env, true);
      // The signal comes just after three messages arrived together (seen arriving, not found there): three
      // connections each with a message on the wire, the answers seconds away, the claimed others waiting their turn.
      let seen: number | undefined;
      await until(
        () => {
          const count = mailed(smtp.messages).length;
          const arrived = seen !== undefined && count !== seen && count % 3 === 0;
          seen = count;
          return arrived;
        },
        'three messages arriving on the wire',
        60_000,
      );
      const onTheWire = mailed(smtp.messages).length;
      expect(onTheWire).toBeLessThan(readers.length);
      const exited = new Promise<number | null>((resolve) => stopping.process.once('exit', (code) => resolve(code)));
      stopping.process.kill('SIGTERM');
      expect(await exited).toBe(0);
      // The three on the wire were answered and recorded; nothing was started after the signal.
      expect(mailed(smtp.messages)).toHaveLength(onTheWire);

      answerAfterMs = 0;
      const restarted = await start(env, true);
      await until(() => done(restarted), 'the send to finish', 60_000);
      await restarted.stop();
      const { counts } = copies(mailed(smtp.messages));
      expect([...counts.keys()].sort()).toEqual(readers.map((email) => `${SUBJECT} ${email}`).sort());
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
      expect(restarted.output()).toContain(`newsletter: "future-post" done: ${readers.length} sent, 0 failed, 0 skipped`);
    } finally {
      await smtp.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
