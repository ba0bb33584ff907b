// Publishing on time: how long after a scheduled post's time it is on every output, and what
// the publish costs the instance. For each size, generates that many posts, dates the newest
// few ahead (one every --spacing seconds), builds them with next build, and starts lectern's
// server with its clock moved (LECTERN_CLOCK_OFFSET_MS) so the first comes due --lead seconds
// after start. From each post's time on, every output is asked in turn until all show the post:
// the delay is the time from the post's time to the end of that check. The CPU is the server's
// (and its children's) from one second before the time to the end of the check, less the same
// span of idle CPU measured before. Reads of a cached page are timed before the first post and
// between posts (the same page, the same number of requests). Across each post's time, READERS
// clients loop over every output and a cached post, from two seconds before the time to two
// seconds after the post is everywhere: the slowest of their reads sent from the time until it is
// everywhere is "the minute a post goes live" (goal: none over 200 ms).
//   node bench/publish.mjs [--publish-sizes=1000,10000] [--scheduled=5] [--spacing=15] [--lead=20]
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { generate } from './generate-posts.mjs';
import { cliOptions, log, median, nextBuild, percentile, saveResult, SITE, sleep, snapshotSite, startLectern, TMP, treeCpuSeconds } from './lib/common.mjs';

const options = cliOptions();
const SIZES = String(options['publish-sizes'] ?? '1000,10000')
  .split(',')
  .map(Number);
const SCHEDULED = Number(options.scheduled ?? 5);
const SPACING_S = Number(options.spacing ?? 15);
const LEAD_S = Number(options.lead ?? 20);
/** --profile-dir=DIR: the server's main thread is profiled (V8's --cpu-prof) into DIR, to see what a publish spends its CPU on. */
const PROFILE_DIR = options['profile-dir'];
const READS = 200;
/** Where the scheduled posts are dated: far ahead, so only the moved clock reaches them. */
const FIRST_DUE = Date.UTC(2990, 0, 1);

/** Clients reading every output in a loop across each post's time. */
const READERS = 12;

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
/** The readers' own connections, one each, so they never queue behind the checks. */
const readerAgent = new http.Agent({ keepAlive: true, maxSockets: READERS });

/** A GET over the keep-alive agent; one whose reused connection the server had just closed is sent again, as browsers do. */
async function get(baseUrl, pathname, over = agent) {
  try {
    return await getOnce(baseUrl, pathname, over);
  } catch (error) {
    if (error.code !== 'ECONNRESET') throw error;
    return getOnce(baseUrl, pathname, over);
  }
}

function getOnce(baseUrl, pathname, over) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get({ hostname, port, path: pathname, agent: over }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** The outputs a post must be on, and whether a response shows it. */
function outputs(post) {
  const names = (body) => body.includes(post.slug);
  return [
    [`/blog/${post.slug}`, (r) => r.status === 200],
    [`/blog/${post.slug}.md`, (r) => r.status === 200],
    [`/api/blog/${post.slug}/markdown`, (r) => r.status === 200],
    ['/', (r) => names(r.body)],
    ['/blog', (r) => names(r.body)],
    ['/api/blog', (r) => names(r.body)],
    [`/tags/${post.tag}`, (r) => names(r.body)],
    [`/tags/${post.tag}/rss.xml`, (r) => names(r.body)],
    ['/api/rss', (r) => names(r.body)],
    ['/atom.xml', (r) => names(r.body)],
    ['/feed.json', (r) => names(r.body)],
    ['/sitemap.xml', (r) => names(r.body)],
    ['/llms.txt', (r) => names(r.body)],
    [`/api/search?q=${encodeURIComponent(post.title.split(' ')[0])}`, (r) => r.status === 200],
  ];
}

/**
 * Asks every output, all at once, again and again until each shows the post; resolves with the
 * moment the last did and, per output, when its answer showing the post arrived.
 */
async function untilEverywhere(baseUrl, post, due) {
  const pending = new Map(outputs(post));
  const arrived = {};
  for (;;) {
    const checks = await Promise.all([...pending].map(async ([pathname, shows]) => [pathname, shows(await get(baseUrl, pathname)), Date.now()]));
    for (const [pathname, shown, at] of checks) {
      if (!shown) continue;
      pending.delete(pathname);
      arrived[pathname] = at - due;
    }
    if (pending.size === 0) return { everywhere: Date.now(), arrived };
    await sleep(20);
  }
}

/** READERS clients, each looping over `urls` until `stop()`; every read's send time, duration and path. */
function startReaders(baseUrl, urls, stop) {
  const reads = [];
  const client = async (first) => {
    for (let index = first; !stop(); index += 1) {
      const sent = Date.now();
      const pathname = urls[index % urls.length];
      const { ms } = await get(baseUrl, pathname, readerAgent);
      reads.push({ sent, ms, pathname });
    }
  };
  return Promise.all(Array.from({ length: READERS }, (_, index) => client(index))).then(() => reads);
}

async function readTimes(baseUrl, pathname) {
  const times = [];
  for (let index = 0; index < READS; index += 1) times.push((await get(baseUrl, pathname)).ms);
  return times.sort((a, b) => a - b);
}

/** Dates the newest `count` posts of a generated folder ahead, `spacing` seconds apart, oldest first. */
function schedule(contentDir, count) {
  const files = fs.readdirSync(path.join(contentDir, 'posts')).sort();
  // The generator numbers its posts oldest first, at the end of each slug.
  const newest = files.sort((a, b) => Number(b.match(/-(\d+)\.md$/)[1]) - Number(a.match(/-(\d+)\.md$/)[1])).slice(0, count);
  return newest.reverse().map((file, index) => {
    const full = path.join(contentDir, 'posts', file);
    const due = FIRST_DUE + index * SPACING_S * 1000;
    const source = fs
      .readFileSync(full, 'utf8')
      .replace(/^date: .*$/m, `date: ${new Date(due).toISOString().replace(/\.\d{3}Z$/, '+00:00')}`)
      .replace(/^updated: .*\n/m, '');
    fs.writeFileSync(full, source);
    const tag = /^tags: \[([^,\]]+)/m.exec(source)[1].trim();
    const title = /^title: (.*)$/m.exec(source)[1].replace(/^"|"$/g, '');
    return { slug: file.replace(/\.md$/, ''), due, tag, title };
  });
}

async function measure(size) {
  const contentDir = path.join(TMP, `publish-${size}`, 'content');
  generate(contentDir, size);
  const posts = schedule(contentDir, SCHEDULED);
  const distDir = `.next-publish-${size}`;
  log(`building ${size} posts (${SCHEDULED} scheduled)`);
  const build = await nextBuild({ distDir, contentDir, timeoutMs: 60 * 60_000, env: { PRERENDER_POSTS: '100', BUILD_WORKERS: '1' } });
  if (!build.ok) {
    console.error(
      build.lines
        .slice(-30)
        .map((entry) => entry.line)
        .join('\n'),
    );
    throw new Error(`next build of ${size} posts failed`);
  }
  const dataDir = fs.mkdtempSync(path.join(TMP, 'publish-data-'));
  const startAt = Date.now();
  const offset = FIRST_DUE - (startAt + LEAD_S * 1000);
  const server = await startLectern({
    distDir,
    env: { CONTENT_DIR: contentDir, LECTERN_CLOCK_OFFSET_MS: String(offset), PREWARM: '0', DATA_DIR: dataDir },
    nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [],
  });
  const realTime = (due) => due - offset;
  try {
    const oldPost = fs
      .readdirSync(path.join(contentDir, 'posts'))
      .map((file) => file.replace(/\.md$/, ''))
      .find((slug) => !posts.some((post) => post.slug === slug));
    await get(server.baseUrl, `/blog/${oldPost}`);
    // Idle CPU over one spacing, before any post: what the instance costs doing nothing.
    const idleFrom = treeCpuSeconds(server.pid);
    await sleep(2000);
    const idlePerSecond = (treeCpuSeconds(server.pid) - idleFrom) / 2;
    const readsBefore = await readTimes(server.baseUrl, `/blog/${oldPost}`);
    const runs = [];
    const readsBetween = [];
    for (const post of posts) {
      const due = realTime(post.due);
      if (Date.now() > due - 1000) throw new Error(`${post.slug} came due before it was watched: raise --lead or --spacing`);
      await sleep(due - 2000 - Date.now());
      let readersStopAt = Infinity;
      const readers = startReaders(server.baseUrl, [...outputs(post).map(([pathname]) => pathname), `/blog/${oldPost}`], () => Date.now() >= readersStopAt);
      await sleep(due - 1000 - Date.now());
      const cpuFrom = treeCpuSeconds(server.pid);
      const from = Date.now();
      await sleep(due - Date.now());
      const { everywhere, arrived } = await untilEverywhere(server.baseUrl, post, due);
      const cpu = treeCpuSeconds(server.pid) - cpuFrom - idlePerSecond * ((everywhere - from) / 1000);
      readersStopAt = everywhere + 2000;
      const reads = await readers;
      const atTheMinute = reads
        .filter((read) => read.sent >= due && read.sent <= everywhere)
        .map((read) => read.ms)
        .sort((a, b) => a - b);
      const beforeTheMinute = reads
        .filter((read) => read.sent < due)
        .map((read) => read.ms)
        .sort((a, b) => a - b);
      const slowest = Object.entries(arrived).sort((a, b) => b[1] - a[1])[0];
      // The slowest reads and what they asked for: which outputs hold readers up, before the time and at it.
      const slowestReads = (from, to) =>
        reads
          .filter((read) => read.sent >= from && read.sent <= to)
          .sort((a, b) => b.ms - a.ms)
          .slice(0, 5)
          .map((read) => ({ pathname: read.pathname, ms: Math.round(read.ms) }));
      runs.push({
        slug: post.slug,
        delayMs: everywhere - due,
        cpuSeconds: Math.max(0, cpu),
        arrivedMs: arrived,
        readsAtTheMinute: atTheMinute.length,
        readMaxAtTheMinuteMs: atTheMinute.at(-1),
        readP99AtTheMinuteMs: percentile(atTheMinute, 99),
        readP99BeforeMs: percentile(beforeTheMinute, 99),
        slowestReadsAtTheMinute: slowestReads(due, everywhere),
        slowestReadsBefore: slowestReads(0, due - 1),
      });
      log(
        `${size} posts: ${post.slug} everywhere ${everywhere - due} ms after its time (last: ${slowest[0]}, ${slowest[1]} ms), ${cpu.toFixed(3)} s CPU; ` +
          `${READERS} readers: slowest read ${atTheMinute.at(-1)?.toFixed(0)} ms of ${atTheMinute.length} at the minute (p99 ${percentile(beforeTheMinute, 99)?.toFixed(0)} ms before)`,
      );
      const named = (list) => list.map((read) => `${read.pathname} ${read.ms} ms`).join(', ');
      log(`  slowest reads at the minute: ${named(runs.at(-1).slowestReadsAtTheMinute)}; before it: ${named(runs.at(-1).slowestReadsBefore)}`);
      readsBetween.push(...(await readTimes(server.baseUrl, `/blog/${oldPost}`)).slice(0, READS / posts.length));
    }
    const delays = runs.map((run) => run.delayMs).sort((a, b) => a - b);
    return {
      size,
      scheduled: posts.length,
      buildSeconds: build.wallSeconds,
      delayP50Ms: median(delays),
      delayMaxMs: delays.at(-1),
      cpuSecondsMedian: median(runs.map((run) => run.cpuSeconds)),
      cpuSecondsMax: Math.max(...runs.map((run) => run.cpuSeconds)),
      readMaxAtTheMinuteMs: Math.max(...runs.map((run) => run.readMaxAtTheMinuteMs ?? 0)),
      readP99AtTheMinuteMs: median(runs.map((run) => run.readP99AtTheMinuteMs ?? 0)),
      readP99BeforeMs: median(runs.map((run) => run.readP99BeforeMs ?? 0)),
      readP50BeforeMs: percentile(readsBefore, 50),
      readP50BetweenMs: percentile(
        readsBetween.sort((a, b) => a - b),
        50,
      ),
      outputs: outputs(posts[0]).length,
      runs,
    };
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(path.join(SITE, distDir), { recursive: true, force: true });
  }
}

snapshotSite();
const sizes = [];
for (const size of SIZES) {
  try {
    sizes.push(await measure(size));
  } catch (error) {
    log(`${size} posts: ${error.message}`);
    sizes.push({ size, error: error.message });
  }
}
saveResult('publish', { settings: { scheduled: SCHEDULED, spacingSeconds: SPACING_S, leadSeconds: LEAD_S, reads: READS, readers: READERS }, sizes });
agent.destroy();
readerAgent.destroy();
