import { createHash, randomBytes, type Hash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { copies, FUTURE_POST_DUE, newsletterMail, seedSqlite } from '../support/newsletter';
import { downloadLinks, paidCheckout, signedEvent } from '../support/payments';
import { startRecorder } from '../support/recorder';
import { copyContractBuild, freePort, portFree, ROOT, startSite, type RunningSite } from '../support/site';
import { startSmtp } from '../support/smtp';
import { until } from '../support/until';

/**
 * A SIGTERM while a newsletter send and two downloads of a large file are in flight, and a start
 * after it on the same store: what the readers and the buyer notice. The contract build is the
 * deploy, served from a copy of the fixture content whose bundle is a file of 64 MiB (made here,
 * never committed). As in newsletter-fenced.test.ts, a first start with the real clock records the
 * posts live then; the starts after it run with their clock past future-post's time, so they mail it.
 */
const WEBHOOK_SECRET = 'whsec_stop_in_flight';
const GRACE_MS = 5000;
/**
 * Until the signal the relay answers each message this long after it has it (less than the grace),
 * so the send of 36 (twelve turns of its three connections) is under way; after it, at once.
 */
const ANSWER_AFTER_MS = 3000;
const READERS = 36;
const SIZE = 64 * 1024 * 1024;
/** How much of the file a reader takes before it stops reading (kernel buffers hold a few MiB more). */
const FIRST_BYTES = 1024 * 1024;
/** Whole downloads a link gives (DOWNLOAD_LIMIT). */
const LIMIT = 3;

const sites: RunningSite[] = [];
const temporary: string[] = [];
afterAll(async () => {
  await Promise.all(sites.map((site) => site.kill()));
  for (const folder of temporary) fs.rmSync(folder, { recursive: true, force: true });
});

/** A download read as a buyer's client reads it, hashed as it arrives; it may stop reading (its socket left open) and go on later. */
type Download = {
  status: number;
  headers: http.IncomingHttpHeaders;
  received: () => number;
  /** The hash of what arrived so far, the download's hash going on. */
  hash: () => Hash;
  resume: () => void;
  /** Once the response has ended (`complete`) or its connection was closed before its last byte. */
  finished: Promise<{ complete: boolean }>;
};

/** Starts a download; with `pauseAfter`, resolves once that many bytes are in and the reader has stopped reading, else at the head. */
function startDownload(baseUrl: string, link: string, options: { range?: string; pauseAfter?: number; hash?: Hash } = {}): Promise<Download> {
  return new Promise((resolve, reject) => {
    const hash = options.hash ?? createHash('sha256');
    const req = http.get(new URL(link, baseUrl), { agent: false, headers: options.range ? { Range: options.range } : {} }, (res) => {
      let received = 0;
      let paused = false;
      const download: Download = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        received: () => received,
        hash: () => hash,
        resume: () => void res.resume(),
        finished: new Promise((done) => res.once('close', () => done({ complete: res.complete }))),
      };
      // A connection cut before the last byte: the `finished` answer says so.
      res.on('error', () => undefined);
      res.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        received += chunk.length;
        if (options.pauseAfter !== undefined && received >= options.pauseAfter && !paused) {
          paused = true;
          res.pause();
          resolve(download);
        }
      });
      if (options.pauseAfter === undefined) resolve(download);
    });
    req.on('error', reject);
  });
}

/** A whole download read to its end: its status, the bytes that came and their hash. */
async function downloadAll(baseUrl: string, link: string, options: { range?: string; hash?: Hash } = {}) {
  const download = await startDownload(baseUrl, link, options);
  const { complete } = await download.finished;
  return { ...download, complete, bytes: download.received(), sha256: download.hash().digest('hex') };
}

describe('SIGTERM during a newsletter send and downloads', () => {
  it('a download in flight finishes within the grace or resumes with Range after the restart, counted once; every reader gets the post once', async () => {
    const stripeApi = await startRecorder(() => ({ status: 404, body: { error: { type: 'invalid_request_error', message: 'unknown' } } }));
    let answerAfterMs = ANSWER_AFTER_MS;
    const smtp = await startSmtp(undefined, { answerAfterMs: () => answerAfterMs });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-stop-in-flight-'));
    const contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-stop-in-flight-content-'));
    temporary.push(dataDir, contentDir);
    try {
      fs.cpSync(inject('contentDir'), contentDir, { recursive: true });
      const file = randomBytes(SIZE);
      fs.writeFileSync(path.join(contentDir, 'deliverables/bundle/fixture-bundle.zip'), file);
      const fileHash = createHash('sha256').update(file).digest('hex');

      const env = {
        SMTP_URL: smtp.url,
        DATA_DIR: dataDir,
        SHUTDOWN_GRACE_MS: String(GRACE_MS),
        STRIPE_SECRET_KEY: 'sk_test_local',
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_URL: stripeApi.url,
        DOWNLOAD_SECRET: 'a-download-signing-key-of-32-chars-or-more',
        DOWNLOAD_LIMIT: String(LIMIT),
        NEWSLETTER_CHECK_MS: '200',
        NEWSLETTER_RATE: '0',
        MAIL_POLL_MS: '200',
        PREWARM: '0',
        // The contract build's settings (global-setup.ts): the pages it generated are made again with them.
        POSTS_PER_PAGE: '1',
        PRERENDER_POSTS: '2',
      };
      // Next writes the lists it makes again into the build folder: the servers that make the post live (one after
      // the other) get a copy of their own.
      const liveBuild = copyContractBuild(path.join(ROOT, inject('distDir')), 'stop-in-flight');
      temporary.push(liveBuild);
      /** A server of the contract build; `live`: on the copy, its clock a minute past future-post's time. */
      const start = async (live: boolean, port?: number) => {
        const distDir = live ? path.relative(ROOT, liveBuild) : inject('distDir');
        const site = await startSite({
          contentDir,
          distDir,
          siteUrl: inject('siteUrl'),
          port: port ?? (await freePort()),
          extraEnv: { ...env, ...(live ? { LECTERN_CLOCK_OFFSET_MS: String(FUTURE_POST_DUE + 60_000 - Date.now()) } : {}) },
        });
        sites.push(site);
        return site;
      };
      const mailed = () => smtp.messages.filter((mail) => newsletterMail(mail) && mail.subject === 'Future post');
      const done = (site: RunningSite) => site.output().includes('newsletter: "future-post" done');

      // The posts live now are recorded (and never mailed); then the confirmed readers.
      const first = await start(false);
      await until(() => first.output().includes('newsletter: first run'), 'the first run');
      await first.stop();
      const emails = Array.from({ length: READERS }, (_, index) => `reader${index}@example.com`);
      seedSqlite(dataDir, emails);

      const port = await freePort();
      const stopping = await start(true, port);
      const exited = new Promise<number | null>((resolve) => stopping.process.once('exit', (code) => resolve(code)));
      // A buyer pays (Stripe's signed event) and gets the link.
      const buyer = 'large-buyer@example.com';
      const paid = await signedEvent(stopping.baseUrl, WEBHOOK_SECRET, paidCheckout('fixture-bundle', buyer, 'pi_large'));
      expect(paid.json()).toMatchObject({ outcome: 'recorded' });
      const [link, ...others] = downloadLinks(await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer)));
      expect(others).toEqual([]);
      // Two downloads of it under way, each reader having taken a little and stopped reading, its connection open.
      const patient = await startDownload(stopping.baseUrl, link!, { pauseAfter: FIRST_BYTES });
      const stalled = await startDownload(stopping.baseUrl, link!, { pauseAfter: FIRST_BYTES });
      expect([patient.status, stalled.status]).toEqual([200, 200]);
      expect(patient.headers['content-length']).toBe(String(SIZE));
      // The send is under way: messages on the wire, others not yet sent.
      await until(() => mailed().length > 0, 'the send to begin', 30_000);
      expect(mailed().length).toBeLessThan(emails.length);

      const signalledAt = Date.now();
      stopping.process.kill('SIGTERM');
      // One reader reads on: the server goes on sending its bytes, and it has the whole file, unharmed, within the grace.
      patient.resume();
      expect(await patient.finished).toEqual({ complete: true });
      expect(Date.now() - signalledAt).toBeLessThan(GRACE_MS);
      expect(patient.received()).toBe(SIZE);
      expect(patient.hash().digest('hex')).toBe(fileHash);
      // The other reads nothing more: its connection is closed once the grace is over, and the server exits 0, its port free.
      expect(await exited).toBe(0);
      expect(Date.now() - signalledAt).toBeLessThan(2 * GRACE_MS);
      expect(await portFree(port)).toBe(true);
      expect(stopping.output()).toContain(`lectern: connections still open after ${GRACE_MS} ms; closing them`);
      expect(stopping.output()).not.toContain('download failed');
      stalled.resume();
      expect(await stalled.finished).toEqual({ complete: false });
      const got = stalled.received();
      expect(got).toBeLessThan(SIZE);
      // The readers not yet mailed are left for the next start.
      const sentBeforeRestart = mailed().length;
      expect(sentBeforeRestart).toBeLessThan(emails.length);

      // The relay answers at once from now on: the restart sends the rest without waiting on it.
      answerAfterMs = 0;
      const restarted = await start(true);
      // The same link resumes the cut download where it stopped: 206, the rest, and the whole file is right.
      const rest = await downloadAll(restarted.baseUrl, link!, { range: `bytes=${got}-`, hash: stalled.hash() });
      expect(rest.status).toBe(206);
      expect(rest.headers['content-range']).toBe(`bytes ${got}-${SIZE - 1}/${SIZE}`);
      expect(rest.complete).toBe(true);
      expect(rest.bytes).toBe(SIZE - got);
      expect(rest.sha256).toBe(fileHash);
      // The two downloads begun before the signal counted once each and the resume not at all: one whole download is left.
      const last = await downloadAll(restarted.baseUrl, link!);
      expect([last.status, last.bytes, last.sha256]).toEqual([200, SIZE, fileHash]);
      expect((await downloadAll(restarted.baseUrl, link!)).status).toBe(410);
      // A link used up still resumes: a download cut by a restart never locks its buyer out.
      const again = await downloadAll(restarted.baseUrl, link!, { range: `bytes=${got}-${got + 1023}` });
      expect([again.status, again.bytes, again.sha256]).toEqual([
        206,
        1024,
        createHash('sha256')
          .update(file.subarray(got, got + 1024))
          .digest('hex'),
      ]);

      await until(() => done(restarted), 'the send to finish', 60_000);
      await restarted.stop();
      // Every reader has the post once, each copy with its own Message-ID; the restart sent the rest.
      const { counts, messageIds } = copies(mailed());
      expect([...counts.keys()].sort()).toEqual(emails.map((email) => `Future post ${email}`).sort());
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
      expect(new Set([...messageIds.values()].flatMap((ids) => [...ids])).size).toBe(emails.length);
      expect(mailed().length).toBeGreaterThan(sentBeforeRestart);
      // And the buyer's mail, on the wire at the signal or sent before, arrived once.
      expect(smtp.messages.filter((mail) => mail.envelopeTo.includes(buyer))).toHaveLength(1);
    } finally {
      await Promise.all([smtp.close(), stripeApi.close()]);
    }
  }, 120_000);
});
