// Flood: what many distinct URLs for the same few resources do to lectern's memory. Starts the
// built site with lectern's server, measures its resident memory, sends 3,000 distinct
// percent-encoded spellings of one post URL and 2,000 query strings on /llms-full.txt (each
// answered 200), lets the server settle, measures again, and checks that a page is still
// answered from memory (a cached read is far quicker than one Next renders). Then made-up values
// under every dynamic segment of app/ (posts, tags, pages, twins, feeds, cards, sitemaps, apps; a
// quarter of them a few hundred characters long), each answered 404: the files and bytes under the
// build folder and the server's memory before and after.
//   node --import tsx bench/flood.mjs [--spellings=3000] [--queries=2000] [--made-up=6000] [--concurrency=16] [--settle=5] [--post=slug]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DYNAMIC_PATHS } from '../lib/content/built-paths.ts';
import {
  cliOptions,
  cpuPressureTotal,
  PIN,
  descendants,
  ensureSiteBuilt,
  log,
  median,
  pinSelf,
  processTable,
  saveResult,
  SITE,
  sleep,
  startLectern,
  treeCpuSeconds,
} from './lib/common.mjs';

const options = cliOptions();
const SPELLINGS = Number(options.spellings ?? 3000);
const QUERIES = Number(options.queries ?? 2000);
const MADE_UP = Number(options['made-up'] ?? 6000);
const CONCURRENCY = Number(options.concurrency ?? 16);
const SETTLE_SECONDS = Number(options.settle ?? 5);
const POST = options.post ?? 'etags-and-conditional-requests';
const GOAL_BYTES = 64 * 2 ** 20;

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** A GET with the path sent exactly as written; resolves with status, headers and body size. */
function get(baseUrl, path, headers = {}) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get({ hostname, port, path, headers, agent }, (res) => {
        let bytes = 0;
        res.on('data', (chunk) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, bytes, ms: performance.now() - started }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Resident memory of the server and any process it started, in bytes. */
function treeRss(pid) {
  const table = processTable();
  return descendants(table, pid).reduce((sum, id) => sum + table.get(id).rssBytes, 0);
}

/** Distinct spellings of `path`: a pseudo-random set of its letters percent-encoded, hex digits in either case. */
function spellingsOf(path, count) {
  let seed = 20_251_123;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const found = new Set();
  while (found.size < count) {
    const spelled = [...path]
      .map((char, index) => {
        if (index < '/blog/'.length || !/[a-z]/.test(char) || random() < 0.5) return char;
        const hex = char.charCodeAt(0).toString(16);
        return `%${random() < 0.5 ? hex : hex.toUpperCase()}`;
      })
      .join('');
    if (spelled !== path) found.add(spelled);
  }
  return [...found];
}

/** `count` made-up URLs, spread over DYNAMIC_PATHS: one value each (`round` makes them differ from another round's), a quarter of them long. */
function madeUpUrls(count, round) {
  return Array.from({ length: count }, (_, index) => {
    const value = `made-up-${round}-${index}${index % 4 === 0 ? `-${'long'.repeat(60 + (index % 90))}` : ''}`;
    const page = index % 2 === 0 ? String(100_000 + index) : `${index}x`;
    return DYNAMIC_PATHS[index % DYNAMIC_PATHS.length].replace('X', value).replace('N', page);
  });
}

/** Files and bytes under a folder. */
function folderSize(folder) {
  let files = 0;
  let bytes = 0;
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return { files, bytes };
}

/** The old-space limit of the second server the made-up values are sent to. */
const HELD_HEAP_MIB = 256;

/**
 * Two rounds of MADE_UP made-up URLs to `server`: the first makes every kind of answer once (Next
 * keeps its one not-found page) and lets the heap grow to what answering them needs; the second,
 * of other values, is measured: its statuses, and the build folder and the server's memory around it.
 */
async function madeUpFlood(server, buildFolder, headers) {
  const firstRssBefore = treeRss(server.pid);
  const first = await flood(server, madeUpUrls(MADE_UP, 1), headers);
  await sleep(SETTLE_SECONDS * 1000);
  const diskBefore = folderSize(buildFolder);
  const rssBefore = treeRss(server.pid);
  const run = await flood(server, madeUpUrls(MADE_UP, 2), headers);
  await sleep(SETTLE_SECONDS * 1000);
  return {
    ...run,
    firstRound: { rssBeforeBytes: firstRssBefore, rssAfterBytes: rssBefore, statuses: first.statuses },
    rssBeforeBytes: rssBefore,
    rssAfterBytes: treeRss(server.pid),
    diskBefore,
    diskAfter: folderSize(buildFolder),
  };
}

/** Sends every path, `CONCURRENCY` at a time; returns the responses and the server's peak memory meanwhile. */
async function flood(server, paths, headers) {
  const responses = new Array(paths.length);
  let next = 0;
  let peak = treeRss(server.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(server.pid))), 100);
  const cpuBefore = treeCpuSeconds(server.pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < paths.length) {
        const index = next++;
        responses[index] = await get(server.baseUrl, paths[index], headers);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, treeRss(server.pid));
  const cpuSeconds = treeCpuSeconds(server.pid) - cpuBefore;
  const statuses = {};
  for (const { status } of responses) statuses[status] = (statuses[status] ?? 0) + 1;
  return {
    requests: paths.length,
    seconds,
    statuses,
    etags: new Set(responses.map((response) => response.headers.etag)).size,
    compressed: responses.filter((response) => ['br', 'gzip'].includes(response.headers['content-encoding'])).length,
    bodyBytes: responses.reduce((sum, response) => sum + response.bytes, 0),
    serverCpuUsPerRequest: (cpuSeconds / paths.length) * 1e6,
    peakRssBytes: peak,
  };
}

/** Median latency of `count` requests sent one after another. */
async function latency(baseUrl, pathOf, count, headers) {
  const samples = [];
  for (let i = 0; i < count; i += 1) {
    const response = await get(baseUrl, pathOf(i), headers);
    if (response.status !== 200) throw new Error(`${pathOf(i)} answered ${response.status}`);
    samples.push(response.ms);
  }
  return median(samples);
}

async function main() {
  pinSelf(1);
  const { distDir } = await ensureSiteBuilt();
  log('starting lectern');
  const server = await startLectern({ distDir, cpu: 0 });
  process.on('SIGINT', () => server.stop().then(() => process.exit(130)));
  try {
    const post = `/blog/${POST}`;
    const page = { Accept: 'text/html,application/xhtml+xml', 'Accept-Encoding': 'gzip, deflate, br' };
    // Warm: the post and the file the queries name are rendered once and kept, as in normal use.
    const warm = await get(server.baseUrl, post, page);
    if (warm.status !== 200) throw new Error(`${post} answered ${warm.status}`);
    await get(server.baseUrl, '/llms-full.txt', page);
    for (let i = 0; i < 200; i += 1) await get(server.baseUrl, i % 2 ? post : '/llms-full.txt', page);
    await sleep(SETTLE_SECONDS * 1000);
    const rssBefore = treeRss(server.pid);
    const pressureBefore = cpuPressureTotal();
    const started = performance.now();
    log(`server memory before: ${(rssBefore / 2 ** 20).toFixed(1)} MiB`);

    const spellings = await flood(server, spellingsOf(post, SPELLINGS), page);
    log(
      `${spellings.requests} spellings of ${post} in ${spellings.seconds.toFixed(1)} s: statuses ${JSON.stringify(spellings.statuses)}, ${spellings.etags} distinct ETag(s), peak ${(spellings.peakRssBytes / 2 ** 20).toFixed(1)} MiB`,
    );
    const queries = await flood(
      server,
      Array.from({ length: QUERIES }, (_, i) => `/llms-full.txt?${i + 1}`),
      page,
    );
    log(
      `${queries.requests} queries on /llms-full.txt in ${queries.seconds.toFixed(1)} s: statuses ${JSON.stringify(queries.statuses)}, ${queries.compressed} compressed, peak ${(queries.peakRssBytes / 2 ** 20).toFixed(1)} MiB`,
    );

    await sleep(SETTLE_SECONDS * 1000);
    const rssAfter = treeRss(server.pid);
    const growth = rssAfter - rssBefore;
    // Share of the time some task on the machine waited for a CPU during the flood (Linux PSI).
    const pressureAfter = cpuPressureTotal();
    const cpuPressure =
      pressureBefore !== undefined && pressureAfter !== undefined
        ? ((pressureAfter - pressureBefore) / ((performance.now() - started) * 1e3)) * 100
        : undefined;
    log(`server memory after ${SETTLE_SECONDS} s: ${(rssAfter / 2 ** 20).toFixed(1)} MiB (${growth >= 0 ? '+' : ''}${(growth / 2 ** 20).toFixed(1)} MiB)`);

    // Still answered from memory: the same ETag as before the flood, far quicker than a read Next
    // renders each time (/api/blog reads its query, so every one of those goes through Next).
    const after = await get(server.baseUrl, post, page);
    const cachedMs = await latency(server.baseUrl, () => post, 200, page);
    const renderedMs = await latency(server.baseUrl, (i) => `/api/blog?limit=${(i % 5) + 1}`, 50, {});
    const fromMemory = after.status === 200 && after.headers.etag === warm.headers.etag && cachedMs < renderedMs / 2;
    log(
      `${post} after the flood: ${after.status}, ETag ${after.headers.etag === warm.headers.etag ? 'unchanged' : 'changed'}; median ${cachedMs.toFixed(2)} ms against ${renderedMs.toFixed(2)} ms for /api/blog?limit=n rendered by Next: ${fromMemory ? 'from memory' : 'NOT from memory'}`,
    );

    // Made-up values under every dynamic segment: nothing may be kept for them, on disk or in memory.
    // Then the same on a server of their own whose heap is held to HELD_HEAP_MIB, so the collector
    // keeps close behind and the resident memory shows what is kept rather than how lazily V8 grows.
    const buildFolder = path.join(SITE, distDir);
    const madeUp = await madeUpFlood(server, buildFolder, page);
    const held = await startLectern({ distDir, cpu: 0, nodeArgs: [`--max-old-space-size=${HELD_HEAP_MIB}`] });
    try {
      madeUp.heldHeap = { heapMiB: HELD_HEAP_MIB, ...(await madeUpFlood(held, buildFolder, page)) };
    } finally {
      await held.stop();
    }
    log(
      `${madeUp.requests} made-up URLs under ${DYNAMIC_PATHS.length} dynamic segments in ${madeUp.seconds.toFixed(1)} s: statuses ${JSON.stringify(madeUp.statuses)}; ` +
        `build folder ${madeUp.diskBefore.files} → ${madeUp.diskAfter.files} files, ${madeUp.diskBefore.bytes} → ${madeUp.diskAfter.bytes} bytes; ` +
        `server memory ${(madeUp.rssBeforeBytes / 2 ** 20).toFixed(1)} → ${(madeUp.rssAfterBytes / 2 ** 20).toFixed(1)} MiB; ` +
        `with the heap held to ${HELD_HEAP_MIB} MiB: ${(madeUp.heldHeap.rssBeforeBytes / 2 ** 20).toFixed(1)} → ${(madeUp.heldHeap.rssAfterBytes / 2 ** 20).toFixed(1)} MiB, ` +
        `${madeUp.heldHeap.diskAfter.files - madeUp.heldHeap.diskBefore.files} files written`,
    );

    saveResult('flood', {
      settings: {
        spellings: SPELLINGS,
        queries: QUERIES,
        madeUp: MADE_UP,
        segments: DYNAMIC_PATHS,
        concurrency: CONCURRENCY,
        settleSeconds: SETTLE_SECONDS,
        post,
        pinned: PIN,
        acceptEncoding: page['Accept-Encoding'],
      },
      rssBeforeBytes: rssBefore,
      rssAfterBytes: rssAfter,
      growthBytes: growth,
      goalBytes: GOAL_BYTES,
      cpuPressure,
      spellings,
      queries,
      madeUp,
      after: { status: after.status, sameEtag: after.headers.etag === warm.headers.etag, cachedMs, renderedMs, fromMemory },
    });
  } finally {
    agent.destroy();
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
