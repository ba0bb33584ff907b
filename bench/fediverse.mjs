// The fediverse: one post delivered to 10,000 followers spread over 1,000 inboxes (issue 39's
// figure). The build of content/ with one more post dated far ahead is served by lectern's server
// with its clock moved (LECTERN_CLOCK_OFFSET_MS) so that the post goes live --lead seconds after
// the start; the followers are written into the fediverse's store in DATA_DIR (fediverse.db,
// Fedify's SQLite key–value store, under the keys lib/fediverse/federation.ts keeps them) before
// the server starts. They live on 1,000 receiving servers on 127.0.0.1, ten to a server, each
// follower with its own inbox and its server's shared inbox, so that Fedify, preferring shared
// inboxes, sends one copy to each server (bench/lib/fediverse-inboxes.mjs: a worker thread that
// answers 202 and counts every activity by inbox). Measures the time from the post's time until
// every inbox has the Create, the copies that came twice, the server's memory growth (its process
// tree, sampled; peak − before) and a cached read's p99 idle and all through the delivery.
// Then, for comparison, the same post going live on a server with no followers, for as long as the
// delivery took: the going live's own memory and reads, apart from the delivery.
//   node --import tsx bench/fediverse.mjs [--followers=10000] [--inboxes=1000] [--lead=45] [--timeout=180] [--control=false]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { SqliteKvStore } from '@fedify/sqlite';
import { FEDIVERSE_DB } from '../lib/fediverse/stores.ts';
import {
  descendants,
  log,
  nextBuild,
  percentile,
  pinSelf,
  processTable,
  runtimeOf,
  runtimeVersion,
  saveResult,
  SITE,
  SITE_URL,
  sleep,
  snapshotSite,
  startLectern,
  TMP,
  treeCpuSeconds,
  cliOptions,
} from './lib/common.mjs';

const options = cliOptions();
const FOLLOWERS = Number(options.followers ?? 10_000);
const INBOXES = Number(options.inboxes ?? 1_000);
/** Seconds from the server's start to the post's time: the start, the checks and the idle reads come first. */
const LEAD_S = Number(options.lead ?? 45);
/** Seconds after the post's time the run gives up waiting for the last inbox. */
const TIMEOUT_S = Number(options.timeout ?? 180);
const IDLE_READS = 2000;
/** After the delivery, the same post going live with no followers (--control=false skips it). */
const CONTROL = options.control !== 'false';
const GOAL = { seconds: 60, growthBytes: 100 * 2 ** 20, p99Ratio: 2 };
/** The post that goes live during the run, dated far ahead so that only the moved clock reaches it. */
const SLUG = 'a-post-for-ten-thousand-followers';
const DUE = Date.UTC(2990, 0, 1);
/** The store's key prefix of the followers, as lib/fediverse/federation.ts keeps them (checked below through the server's followers count). */
const FOLLOWERS_KEY = ['lectern', 'followers'];
const HANDLE = 'blog';
const AS = 'application/activity+json';

function treeRss(pid) {
  const table = processTable();
  return descendants(table, pid).reduce((sum, id) => sum + table.get(id).rssBytes, 0);
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
/** One GET over the kept-alive connection; one the server had just closed as idle is sent again. */
async function get(baseUrl, pathname, accept = 'text/html') {
  try {
    return await getOnce(baseUrl, pathname, accept);
  } catch (error) {
    if (error?.code !== 'ECONNRESET') throw error;
    return getOnce(baseUrl, pathname, accept);
  }
}
function getOnce(baseUrl, pathname, accept) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get({ hostname, port, path: pathname, agent, headers: { Accept: accept, 'Accept-Encoding': 'br, gzip' } }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
      })
      .on('error', reject);
  });
}

/** Sequential reads of one cached page until `done()` or `count` reads: each read's send time (ms since the epoch) and duration. */
async function reads(baseUrl, pathname, { count, done }) {
  const samples = [];
  while (count === undefined ? !done() : samples.length < count && !done?.()) {
    const sent = Date.now();
    const response = await get(baseUrl, pathname);
    if (response.status !== 200) throw new Error(`${pathname} answered ${response.status}`);
    samples.push({ sent, ms: response.ms });
  }
  return samples;
}

const sorted = (samples) => samples.map((sample) => sample.ms).sort((a, b) => a - b);

/**
 * content/ with one more post, dated DUE, in a folder of its own, built once per change of the
 * source into its own build folder of the site's copy.
 */
async function ensureBuilt() {
  const { digest } = snapshotSite();
  const contentDir = path.join(TMP, 'fediverse', 'content');
  const distDir = '.next-fediverse';
  const post = [
    '---',
    'title: "A post for ten thousand followers"',
    'description: "Delivered to every follower on the fediverse at its minute, through their servers\' shared inboxes."',
    `date: ${new Date(DUE).toISOString().replace(/\.\d{3}Z$/, '+00:00')}`,
    'tags:',
    '  - http',
    '---',
    '',
    'Scheduled ahead, delivered at its time.',
    '',
  ].join('\n');
  const stamp = path.join(SITE, distDir, '.bench-source');
  const wanted = `${digest} ${runtimeVersion(runtimeOf(SITE))} ${post}`;
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted && fs.existsSync(contentDir)) return { contentDir, distDir };
  fs.rmSync(contentDir, { recursive: true, force: true });
  fs.cpSync(path.join(SITE, 'content'), contentDir, { recursive: true });
  fs.writeFileSync(path.join(contentDir, 'posts', `${SLUG}.md`), post);
  log(`building content/ and ${SLUG} (NEXT_DIST_DIR=${distDir})`);
  const build = await nextBuild({ distDir, contentDir, timeoutMs: 30 * 60_000 });
  if (!build.ok) {
    console.error(
      build.lines
        .slice(-40)
        .map((entry) => entry.line)
        .join('\n'),
    );
    throw new Error('next build for the fediverse bench failed');
  }
  fs.writeFileSync(stamp, wanted);
  log(`built in ${build.wallSeconds.toFixed(1)} s`);
  return { contentDir, distDir };
}

/** The receiving servers (a worker thread): their ports, and a way to ask for the counts. */
async function startInboxes() {
  const worker = new Worker(new URL('./lib/fediverse-inboxes.mjs', import.meta.url), { workerData: { servers: INBOXES } });
  const waiting = new Map();
  let allAt;
  worker.on('message', (message) => {
    if (message.type === 'all') allAt = message.at;
    waiting.get(message.type)?.(message);
  });
  const next = (type) => new Promise((resolve) => waiting.set(type, resolve));
  const { ports } = await next('listening');
  return {
    ports,
    allAt: () => allAt,
    report: () => {
      const answer = next('report');
      worker.postMessage({ type: 'report' });
      return answer;
    },
    close: async () => {
      worker.postMessage({ type: 'close' });
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

/**
 * FOLLOWERS followers in the fediverse's store under `dataDir`, as the inbox keeps one that
 * followed (its actor ID, its inbox, its server's shared inbox), spread evenly over the servers.
 */
function seedFollowers(dataDir, ports) {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(path.join(dataDir, FEDIVERSE_DB));
  db.exec('PRAGMA journal_mode=WAL');
  const kv = new SqliteKvStore(db);
  const perServer = Math.ceil(FOLLOWERS / ports.length);
  const writes = [];
  db.exec('BEGIN');
  for (let index = 0; index < FOLLOWERS; index += 1) {
    const origin = `http://127.0.0.1:${ports[Math.floor(index / perServer)]}`;
    const id = `${origin}/users/reader${index}`;
    writes.push(kv.set([...FOLLOWERS_KEY, id], { id, inbox: `${id}/inbox`, sharedInbox: `${origin}/inbox` }));
  }
  return Promise.all(writes).then(() => {
    db.exec('COMMIT');
    db.close();
  });
}

/** Lines of the server's log that name the fediverse, and when each was first seen. */
function watchLog(file) {
  const seen = [];
  let offset = 0;
  return {
    seen,
    poll() {
      const text = fs.readFileSync(file, 'utf8');
      const fresh = text.slice(offset);
      const complete = fresh.lastIndexOf('\n') + 1;
      offset += complete;
      for (const line of fresh.slice(0, complete).split('\n')) if (/fediverse/.test(line)) seen.push({ at: Date.now(), line });
    },
  };
}

/** Starts lectern's server on `dataDir` with its clock moved so that the post is due at `dueAt`. */
function startServer({ distDir, contentDir, dataDir, dueAt, name = 'lectern' }) {
  return startLectern({
    distDir,
    name,
    cpu: 0,
    env: {
      CONTENT_DIR: contentDir,
      DATA_DIR: dataDir,
      LECTERN_CLOCK_OFFSET_MS: String(DUE - dueAt),
      FEDIVERSE_LOOPBACK: '1',
      FEDIVERSE_HANDLE: HANDLE,
      PREWARM: '0',
    },
  });
}

/**
 * Idle reads of `page` before the post's time, then reads all through from that time until
 * `until()` (or the timeout), with the server's memory sampled every 200 ms and its log watched
 * from one second before the time.
 */
async function goLive(server, { dueAt, page, until }) {
  await reads(server.baseUrl, page, { count: 200 });
  await sleep(2000);
  const idle = await reads(server.baseUrl, page, { count: IDLE_READS, done: () => Date.now() > dueAt - 2000 });
  if (idle.length < IDLE_READS / 4) throw new Error(`only ${idle.length} idle reads before the post's time: raise --lead`);
  const serverLog = watchLog(server.logFile);
  serverLog.poll();
  serverLog.seen.length = 0;
  await sleep(Math.max(0, dueAt - 1000 - Date.now()));
  const rssBefore = treeRss(server.pid);
  const cpuBefore = treeCpuSeconds(server.pid);
  let peak = rssBefore;
  const rssSamples = [];
  const sampler = setInterval(() => {
    const rss = treeRss(server.pid);
    rssSamples.push({ at: Date.now(), rss });
    peak = Math.max(peak, rss);
    serverLog.poll();
  }, 200);
  log(
    `${server.name}: idle p99 ${percentile(sorted(idle), 99).toFixed(2)} ms (${idle.length} reads); server ${(rssBefore / 2 ** 20).toFixed(1)} MiB; the post goes live`,
  );
  await sleep(Math.max(0, dueAt - Date.now()));
  const deadline = dueAt + TIMEOUT_S * 1000;
  const during = await reads(server.baseUrl, page, { done: () => until() || Date.now() > deadline });
  const endedAt = Date.now();
  const cpuSeconds = treeCpuSeconds(server.pid) - cpuBefore;
  clearInterval(sampler);
  peak = Math.max(peak, treeRss(server.pid));
  return { idle, during, endedAt, rssBefore, peak, rssSamples, cpuSeconds, serverLog };
}

/**
 * The same post going live on a server with no followers, for as long as the delivery took: what
 * the going live costs (its pages made anew) without the delivery.
 */
async function controlRound({ distDir, contentDir, page, windowMs }) {
  const dataDir = fs.mkdtempSync(path.join(TMP, 'fediverse-data-'));
  const dueAt = Date.now() + LEAD_S * 1000;
  const server = await startServer({ distDir, contentDir, dataDir, dueAt, name: 'lectern-no-followers' });
  try {
    const run = await goLive(server, { dueAt, page, until: () => Date.now() >= dueAt + windowMs });
    const result = {
      seconds: (run.endedAt - dueAt) / 1000,
      rssBeforeBytes: run.rssBefore,
      rssPeakBytes: run.peak,
      growthBytes: run.peak - run.rssBefore,
      serverCpuSeconds: run.cpuSeconds,
      reads: {
        idleP99Ms: percentile(sorted(run.idle), 99),
        duringP50Ms: percentile(sorted(run.during), 50),
        duringP99Ms: percentile(sorted(run.during), 99),
        duringCount: run.during.length,
      },
    };
    log(
      `no followers: growth ${(result.growthBytes / 2 ** 20).toFixed(1)} MiB; read p99 ${result.reads.duringP99Ms?.toFixed(2)} ms over ${result.seconds.toFixed(1)} s vs ${result.reads.idleP99Ms.toFixed(2)} ms idle; ${run.cpuSeconds.toFixed(1)} s server CPU`,
    );
    return result;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  pinSelf(1);
  const { contentDir, distDir } = await ensureBuilt();
  const dataDir = fs.mkdtempSync(path.join(TMP, 'fediverse-data-'));
  const inboxes = await startInboxes();
  const page = '/blog/one-date-everywhere';
  let server;
  try {
    await seedFollowers(dataDir, inboxes.ports);
    log(`${FOLLOWERS} followers on ${inboxes.ports.length} servers in ${path.join(dataDir, FEDIVERSE_DB)}`);
    const dueAt = Date.now() + LEAD_S * 1000;
    server = await startServer({ distDir, contentDir, dataDir, dueAt });
    log(`server up ${((dueAt - Date.now()) / 1000).toFixed(1)} s before the post's time`);
    const followers = JSON.parse((await get(server.baseUrl, `/@${HANDLE}/followers`, AS)).body);
    if (followers.totalItems !== FOLLOWERS)
      throw new Error(`the server counts ${followers.totalItems} followers, not ${FOLLOWERS}: the store's layout changed`);
    // The actor's keys are made on first use: a site that has followers has them already.
    const actor = await get(server.baseUrl, `/@${HANDLE}`, AS);
    if (actor.status !== 200) throw new Error(`/@${HANDLE} answered ${actor.status}`);
    const { idle, during, rssBefore, peak, rssSamples, cpuSeconds, serverLog } = await goLive(server, {
      dueAt,
      page,
      until: () => inboxes.allAt() !== undefined,
    });
    const doneAt = inboxes.allAt() ?? Date.now();
    // Room for a second copy to arrive, were one sent.
    await sleep(3000);
    serverLog.poll();
    const rssAfter = treeRss(server.pid);
    await server.stop();
    const counts = await inboxes.report();
    const arrivals = counts.arrivals.map((at) => at - dueAt);
    const delivering = during.filter((sample) => counts.arrivals.length > 0 && sample.sent >= counts.arrivals[0] && sample.sent <= doneAt);
    const queued = serverLog.seen.find((entry) => /queued for its followers/.test(entry.line));
    // The post going live (its pages made anew) before the first copy left, apart from the delivery itself.
    const peakBeforeFirst = Math.max(rssBefore, ...rssSamples.filter((sample) => sample.at < (counts.arrivals[0] ?? Infinity)).map((sample) => sample.rss));
    const failures = serverLog.seen.filter((entry) => /failed|stopped|could not/.test(entry.line));
    const result = {
      followers: FOLLOWERS,
      inboxes: INBOXES,
      settings: { leadSeconds: LEAD_S, timeoutSeconds: TIMEOUT_S, page, siteUrl: SITE_URL },
      delivery: {
        complete: inboxes.allAt() !== undefined,
        seconds: (doneAt - dueAt) / 1000,
        queuedAfterMs: queued ? queued.at - dueAt : undefined,
        firstArrivalMs: arrivals[0],
        halfArrivedMs: arrivals[Math.floor(arrivals.length / 2)],
        lastArrivalMs: arrivals.at(-1),
        inboxesReached: counts.inboxesReached,
        inboxesPosted: counts.inboxesPosted,
        posts: counts.stats.posts,
        creates: counts.stats.creates,
        signed: counts.stats.signed,
        personalInboxPosts: counts.stats.personal,
        duplicates: counts.duplicates,
        otherRequests: counts.stats.otherRequests,
        otherRequestSample: counts.stats.otherSample,
        maxConcurrentPosts: counts.stats.maxInFlight,
        bytesPerPost: counts.stats.posts ? counts.stats.bytes / counts.stats.posts : undefined,
        serverCpuSeconds: cpuSeconds,
        failuresLogged: failures.length,
        failureSample: failures.slice(0, 3).map((entry) => entry.line),
      },
      rssBeforeBytes: rssBefore,
      rssPeakBytes: peak,
      rssAfterBytes: rssAfter,
      growthBytes: peak - rssBefore,
      growthBeforeFirstArrivalBytes: peakBeforeFirst - rssBefore,
      reads: {
        idleP50Ms: percentile(sorted(idle), 50),
        idleP99Ms: percentile(sorted(idle), 99),
        idleCount: idle.length,
        duringP50Ms: percentile(sorted(during), 50),
        duringP99Ms: percentile(sorted(during), 99),
        duringMaxMs: sorted(during).at(-1),
        duringCount: during.length,
        deliveringP99Ms: percentile(sorted(delivering), 99),
        deliveringCount: delivering.length,
      },
      goals: GOAL,
    };
    log(
      `${counts.inboxesReached} of ${INBOXES} inboxes had the Create ${result.delivery.seconds.toFixed(1)} s after the post's time ` +
        `(queued at ${result.delivery.queuedAfterMs ?? '?'} ms, first at ${arrivals[0] ?? '?'} ms); ${counts.duplicates} duplicates; ` +
        `growth ${((peak - rssBefore) / 2 ** 20).toFixed(1)} MiB; read p99 ${result.reads.duringP99Ms?.toFixed(2)} ms during vs ${result.reads.idleP99Ms.toFixed(2)} ms idle; ` +
        `${cpuSeconds.toFixed(1)} s server CPU`,
    );
    saveResult('fediverse', result);
    // --control=false skips it.
    if (CONTROL) saveResult('fediverse', { ...result, control: await controlRound({ distDir, contentDir, page, windowMs: doneAt - dueAt }) });
  } finally {
    await server?.stop();
    await inboxes.close();
    agent.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
