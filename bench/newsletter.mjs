// Newsletter: one send of a post to 10,000 confirmed subscribers through a local SMTP server
// (smtp-server, no rate limit), from lectern's server on the built content/ site. Measures the
// whole send's time, the server's memory growth, the store's growth per recipient, and the p99
// of a cached read during the send against its idle p99. Then a second send is killed (SIGKILL)
// half-way and the server started again: every subscriber must have the post, and the copies
// that came twice (messages in flight at the kill) are counted, with their Message-IDs.
// The subscribers and the baseline of published posts are written into the store before the
// server starts (no 10,000 confirmation mails); each send is started in the store as the server
// starts one, under a slug of its own, so one build serves both rounds.
//   node --import tsx bench/newsletter.mjs [--subscribers=10000] [--before=REF] [--newsletter-rounds=3] [--kill=false]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { Database } from '../lib/services/store/sqlite-database.ts';
import { SMTPServer } from 'smtp-server';
import { loadContent } from '../lib/content/load.ts';
import { renderNewsletterMail } from '../lib/newsletter/mail.ts';
import { openSqliteStore } from '../lib/services/store/sqlite.ts';
import {
  cliOptions,
  descendants,
  ensureSiteBuilt,
  freePort,
  log,
  percentile,
  pinSelf,
  processTable,
  runtimeOf,
  runtimeVersion,
  saveResult,
  SITE,
  SITE_URL,
  sleep,
  snapshotRef,
  startLectern,
} from './lib/common.mjs';

const options = cliOptions();
const SUBSCRIBERS = Number(options.subscribers ?? 10_000);
const IDLE_READS = 2000;
const GOAL = { seconds: 60, growthBytes: 100 * 2 ** 20, bytesPerRecipient: 2048, p99Ratio: 2 };
// --before=REF: after the rounds above, the same send from the project at that commit (on its own
// runtime) and from the working tree, alternating, until each has --newsletter-rounds sends
// (default 3, 1 with --rounds=1).
const BEFORE = options.before;
const KILL = options.kill !== 'false';
const NEWSLETTER_ROUNDS = Math.max(Number(options['newsletter-rounds'] ?? (options.rounds === '1' ? 1 : 3)), 1);

function treeRss(pid) {
  const table = processTable();
  return descendants(table, pid).reduce((sum, id) => sum + table.get(id).rssBytes, 0);
}

/** A local SMTP server that counts each message by its send (the slug in its Message-ID) and recipient. */
async function startCountingSmtp() {
  const received = new Map();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      let head = '';
      stream.on('data', (chunk) => {
        if (head.length < 8192) head += chunk.toString('utf8');
      });
      stream.on('end', () => {
        const id = /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? '';
        for (const { address } of session.envelope.rcptTo) {
          const key = `${id.slice(1, id.indexOf('.'))} ${address}`;
          const entry = received.get(key) ?? { count: 0, ids: new Set() };
          entry.count += 1;
          entry.ids.add(id);
          received.set(key, entry);
        }
        callback();
      });
    },
  });
  // The server killed half-way resets its connections: its end, not this server's failure.
  server.on('error', (error) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') throw error;
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  const of = (slug) => [...received.entries()].filter(([key]) => key.startsWith(`${slug} `)).map(([, entry]) => entry);
  return { url: `smtp://127.0.0.1:${port}`, of, close: () => new Promise((resolve) => server.close(resolve)) };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/**
 * One GET over the kept-alive connection. A connection the server closed as idle just as the
 * request left it is reset: the read is made again on a new one (a GET is safe to repeat).
 */
async function get(baseUrl, pathname) {
  try {
    return await getOnce(baseUrl, pathname);
  } catch (error) {
    if (error?.code !== 'ECONNRESET') throw error;
    return getOnce(baseUrl, pathname);
  }
}
function getOnce(baseUrl, pathname) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get({ hostname, port, path: pathname, agent, headers: { Accept: 'text/html', 'Accept-Encoding': 'br, gzip' } }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
      })
      .on('error', reject);
  });
}

/** Sequential reads of one cached page until `done()` (or `count` reads); their latencies, sorted. */
async function reads(baseUrl, pathname, { count, done }) {
  const samples = [];
  while (count === undefined ? !done() : samples.length < count) {
    const response = await get(baseUrl, pathname);
    if (response.status !== 200) throw new Error(`${pathname} answered ${response.status}`);
    samples.push(response.ms);
  }
  return samples.sort((a, b) => a - b);
}

function storeBytes(file) {
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = db.pragma('page_count', { simple: true }) * db.pragma('page_size', { simple: true });
  db.close();
  return bytes;
}

/** A store as a site with SUBSCRIBERS confirmed readers has it, every published post in the baseline. */
async function seededStore(dbFile, published) {
  const store = openSqliteStore(dbFile);
  await store.newsletter.recordBaseline(published, Date.now());
  const db = new Database(dbFile);
  const insert = db.prepare(`INSERT INTO subscribers (email, status, created_at, confirmed_at, updated_at) VALUES (?, 'confirmed', 1, 1, 1)`);
  db.transaction(() => {
    for (let index = 0; index < SUBSCRIBERS; index++) insert.run(`reader${index}@example.com`);
  })();
  db.close();
  return store;
}

/**
 * One whole send from `server`, timed from its start in the store to its end there, with the
 * server's memory (its process tree, sampled) and a cached read's latency idle and all through it.
 */
async function measureSend({ server, store, dbFile, smtp, page, mail, slug }) {
  const sendOf = async () => (await store.newsletter.sends()).find((send) => send.slug === slug);
  await reads(server.baseUrl, page, { count: 200 });
  await sleep(2000);
  const idle = await reads(server.baseUrl, page, { count: IDLE_READS });
  const rssBefore = treeRss(server.pid);
  const bytesBefore = storeBytes(dbFile);
  log(`${server.name}: idle p99 ${percentile(idle, 99).toFixed(2)} ms, server ${(rssBefore / 2 ** 20).toFixed(1)} MiB; sending to ${SUBSCRIBERS}`);
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(server.pid))), 200);
  const started = performance.now();
  await store.newsletter.startSend({ slug, mail: JSON.stringify({ ...mail, slug }), now: Date.now() });
  let finished = false;
  const watcher = (async () => {
    while (!finished) {
      if ((await sendOf())?.state === 'sent') finished = true;
      else await sleep(100);
    }
  })();
  const during = await reads(server.baseUrl, page, { done: () => finished });
  await watcher;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, treeRss(server.pid));
  const send = await sendOf();
  const bytesAfter = storeBytes(dbFile);
  const copies = smtp.of(slug);
  log(
    `${server.name}: sent ${send.sent} in ${seconds.toFixed(1)} s; growth ${((peak - rssBefore) / 2 ** 20).toFixed(1)} MiB; p99 during ${percentile(during, 99).toFixed(2)} ms`,
  );
  return {
    send: { seconds, sent: send.sent, failed: send.failed, received: copies.length, duplicates: copies.filter((entry) => entry.count > 1).length },
    rssBeforeBytes: rssBefore,
    rssPeakBytes: peak,
    growthBytes: peak - rssBefore,
    storeBytesPerRecipient: (bytesAfter - bytesBefore) / SUBSCRIBERS,
    reads: {
      idleP50Ms: percentile(idle, 50),
      idleP99Ms: percentile(idle, 99),
      duringP50Ms: percentile(during, 50),
      duringP99Ms: percentile(during, 99),
      duringCount: during.length,
    },
  };
}

/** The figures of one send compared before and after. */
const sendFigures = (round) => ({
  seconds: round.send.seconds,
  sent: round.send.sent,
  growthBytes: round.growthBytes,
  rssPeakBytes: round.rssPeakBytes,
  idleP99Ms: round.reads.idleP99Ms,
  duringP99Ms: round.reads.duringP99Ms,
});

/**
 * The same send from the project at --before (its copy, built from content/ on its own runtime) and
 * from the working tree, alternating, each in a fresh store and a freshly started server; the first
 * send above is the working tree's first round.
 */
async function beforeAndAfter({ first, distDir, published, smtp, page, mail, onRound }) {
  const snapshot = snapshotRef(BEFORE);
  const built = await ensureSiteBuilt(snapshot);
  const rounds = { after: [sendFigures(first)], before: [] };
  for (let round = 1; round <= NEWSLETTER_ROUNDS; round += 1) {
    for (const id of round < NEWSLETTER_ROUNDS ? ['before', 'after'] : ['before']) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-newsletter-'));
      const dbFile = path.join(dataDir, 'lectern.db');
      const store = await seededStore(dbFile, published);
      const env = { DATA_DIR: dataDir, SMTP_URL: smtp.url, NEWSLETTER_RATE: '0', NEWSLETTER_CHECK_MS: '1000', NEWSLETTER_LEASE_SECONDS: '10', PREWARM: '0' };
      const server =
        id === 'before'
          ? await startLectern({ distDir: built.distDir, site: snapshot.site, cpu: 0, env, name: `lectern-before` })
          : await startLectern({ distDir, cpu: 0, env });
      try {
        const result = await measureSend({ server, store, dbFile, smtp, page, mail, slug: `bench-${id}-${round}` });
        rounds[id].push(sendFigures(result));
        onRound({ ref: snapshot.sha, node: { after: runtimeVersion(runtimeOf(SITE)), before: snapshot.nodeVersion }, rounds });
      } finally {
        await server.stop();
        await store.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }
  return { ref: snapshot.sha, node: { after: runtimeVersion(runtimeOf(SITE)), before: snapshot.nodeVersion }, rounds };
}

async function main() {
  pinSelf(1);
  const { distDir } = await ensureSiteBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bench-newsletter-'));
  const dbFile = path.join(dataDir, 'lectern.db');
  const content = loadContent(path.join(SITE, 'content'));
  const published = JSON.parse(fs.readFileSync(path.join(SITE, distDir, 'lectern', 'published.json'), 'utf8')).slugs;
  const post = content.posts.find((entry) => entry.slug === published[0]);
  const site = { name: content.site.name, language: content.site.language, url: `${SITE_URL}/` };
  const mail = await renderNewsletterMail({ ...post, url: `${SITE_URL}/blog/${post.slug}`, markdownUrl: `${SITE_URL}/blog/${post.slug}.md` }, site);

  const store = await seededStore(dbFile, published);
  const smtp = await startCountingSmtp();
  const env = { DATA_DIR: dataDir, SMTP_URL: smtp.url, NEWSLETTER_RATE: '0', NEWSLETTER_CHECK_MS: '1000', NEWSLETTER_LEASE_SECONDS: '10', PREWARM: '0' };
  let server = await startLectern({ distDir, cpu: 0, env });
  const page = `/blog/${post.slug}`;
  const startSend = (slug) => store.newsletter.startSend({ slug, mail: JSON.stringify({ ...mail, slug }), now: Date.now() });
  const sendOf = async (slug) => (await store.newsletter.sends()).find((send) => send.slug === slug);
  try {
    // Round 1: the whole send.
    const first = await measureSend({ server, store, dbFile, smtp, page, mail, slug: 'bench-send' });

    // Round 2: a kill -9 half-way, then a restart that finishes the send (--kill=false skips it).
    let kill;
    if (KILL) {
      await startSend('bench-kill');
      while (smtp.of('bench-kill').length < SUBSCRIBERS / 2) await sleep(20);
      await server.stop('SIGKILL');
      const atKill = smtp.of('bench-kill').length;
      log(`killed with ${atKill} of ${SUBSCRIBERS} delivered; starting again`);
      server = await startLectern({ distDir, cpu: 0, env });
      while ((await sendOf('bench-kill'))?.state !== 'sent') await sleep(200);
      const killed = smtp.of('bench-kill');
      const twice = killed.filter((entry) => entry.count > 1);
      kill = {
        deliveredAtKill: atKill,
        recipients: killed.length,
        missing: SUBSCRIBERS - killed.length,
        twice: twice.length,
        twiceWithOtherMessageId: twice.filter((entry) => entry.ids.size > 1).length,
      };
    }
    await server.stop();

    const save = (beforeAfter) => saveResult('newsletter', { subscribers: SUBSCRIBERS, ...first, kill, goals: GOAL, beforeAfter });
    save(undefined);
    // Saved after every send: a run stopped half-way keeps the rounds it finished.
    if (BEFORE) await beforeAndAfter({ first, distDir, published, smtp, page, mail, onRound: save });
  } finally {
    await server.stop();
    await store.close();
    await smtp.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
