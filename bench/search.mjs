// Search: lectern's index (lib/search) over generated posts, and the engine it replaced for
// comparison, then lectern's server under search load.
//
// 1. Engines, in this process (lib/search called directly): for each corpus and size, the index
//    built (time, and heap used after a full GC before and after, the posts held throughout) and
//    the time of one search as /api/search runs it (query, then the passages of the results,
//    limit 10) over a few hundred varied queries: words, tags, prefixes, typos, two and three
//    words, and words no post has; then the worst queries of the corpus (its commonest words,
//    ten at once, repeated, unfinished, mistyped), each run 50 times.
//    Two corpora: `generated` (bench/generate-posts.mjs as the build benchmark writes it: a
//    vocabulary of about 200 words, so a typical word is in about 1,000 posts of 10,000) and
//    `real` (the same posts with their text drawn from the words of content/posts with their
//    counts, so the site's common words are in most posts). lectern's engine at 10,000 and
//    50,000 posts; MiniSearch (as lectern used it, and with a top-k cut) at 10,000.
// 2. foldText over 50 texts of 23,000 characters, ASCII and with curly quotes (CPU time).
// 3. Over HTTP (skipped with --http=false): 10,000 `real` posts built with next build and served
//    by lectern's server; the p50/p99 of a cached read (/llms.txt, one client in a loop) idle and
//    while 4 clients loop the worst query on /api/search, and the server's log line saying the
//    index was built at start.
//   node --expose-gc --import tsx bench/search.mjs [--posts=10000,50000] [--queries=400] [--rounds=5] [--http=false] [--seconds=8]
//     [--parts=engines,fold,http] [--before=REF] [--search-rounds=3]
//    With --before=REF the commit's copy (bench/lib/common.mjs, snapshotRef: its own node_modules and
//    Node.js) is built from the same posts and served too; the two are measured in turn, in rounds.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { splitFrontmatter } from '../lib/content/frontmatter.ts';
import { buildSearchIndex } from '../lib/search/index.ts';
import { foldText, queryWords, STOP_WORDS, words as wordsOf } from '../lib/search/text.ts';
import { buildMiniSearchIndex } from './lib/minisearch-engine.ts';
import { generate, makePost, prng, realVocabulary } from './generate-posts.mjs';
import {
  cliOptions,
  log,
  nextBuild,
  percentile,
  pinSelf,
  readJson,
  RESULTS,
  runtimeOf,
  runtimeVersion,
  saveResult,
  SITE,
  sleep,
  snapshotRef,
  snapshotSite,
  startLectern,
  TMP,
} from './lib/common.mjs';

const options = cliOptions();
const SIZES = String(options.posts ?? '10000,50000')
  .split(',')
  .map(Number);
const QUERIES = Number(options.queries ?? 400);
const ROUNDS = Number(options.rounds ?? 5);
const HTTP = options.http !== 'false';
// --parts=engines,fold,http (default all): the parts not run keep their figures from the last results.
const PARTS = new Set(String(options.parts ?? 'engines,fold,http').split(','));
const previous = readJson(path.join(RESULTS, 'search.json'));
const SECONDS = Number(options.seconds ?? 8);
// --before=REF: the part over HTTP also serves the project at that commit, on its own runtime, in
// --search-rounds rounds (default 3, 1 with --rounds=1) alternating with the working tree.
const BEFORE = options.before;
const SEARCH_ROUNDS = Math.max(Number(options['search-rounds'] ?? (options.rounds === '1' ? 1 : 3)), 1);
const LIMIT = 10;
const GOALS = { p99Ms: { 10000: 5, 50000: 15 }, worstMs: 20, indexBytes: 100 * 2 ** 20, buildMs: 5000, readRatio: 2 };

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc --import tsx bench/search.mjs');
  process.exit(2);
}

function heapUsed() {
  for (let i = 0; i < 3; i += 1) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

const VOCABULARY = realVocabulary();

function posts(count, corpus) {
  const random = prng(1);
  return Array.from({ length: count }, (_, index) => {
    const { slug, source } = makePost(index, count, random, corpus === 'real' ? VOCABULARY : undefined);
    const { data, body } = splitFrontmatter(source);
    return { slug, title: data.title, description: data.description, tags: data.tags ?? [], date: String(data.date), body };
  });
}

/** Queries of several kinds, drawn from the posts' own words so most of them match. */
function queries(all, count) {
  const random = prng(42);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const lower = (text) => text.toLowerCase().match(/[a-z]{3,}/g) ?? [];
  const titleWords = [...new Set(all.flatMap((post) => lower(post.title)))];
  const bodyWords = [...new Set(all.slice(0, 200).flatMap((post) => lower(post.body)))];
  const tags = [...new Set(all.flatMap((post) => post.tags))];
  // One letter replaced by another: one edit, which the search forgives in words of five letters or more.
  const typo = (word) => {
    const at = 1 + Math.floor(random() * (word.length - 2));
    const letter = 'aeiourst'.replace(word[at], '')[Math.floor(random() * 7)];
    return `${word.slice(0, at)}${letter}${word.slice(at + 1)}`;
  };
  const kinds = {
    'title word': () => pick(titleWords),
    'body word': () => pick(bodyWords),
    tag: () => pick(tags),
    prefix: () => pick(titleWords.filter((word) => word.length >= 6)).slice(0, 3 + Math.floor(random() * 3)),
    typo: () => typo(pick(titleWords.filter((word) => word.length >= 6))),
    'two words': () => lower(pick(all).title).slice(0, 2).join(' '),
    'three words': () => lower(pick(all).title).slice(1, 4).join(' '),
    'no match': () => pick(['zebra', 'quixotic', 'xylophone', 'kumquat', 'zeppelin']),
  };
  const names = Object.keys(kinds);
  return Array.from({ length: count }, (_, i) => {
    const kind = names[i % names.length];
    return { kind, query: kinds[kind]() };
  });
}

/** The costliest queries a client can send for this corpus: its commonest indexed words, as many as a query may search, in several forms. */
function worstQueries(all) {
  const counts = new Map();
  for (const post of all.slice(0, 500))
    for (const word of new Set(wordsOf(`${post.title} ${post.body}`)))
      if (!STOP_WORDS.has(word) && word.length > 1) counts.set(word, (counts.get(word) ?? 0) + 1);
  const common = [...counts].sort((a, b) => b[1] - a[1]).map(([word]) => word);
  const ten = common.slice(0, 10);
  const long = common.filter((word) => word.length >= 5).slice(0, 10);
  const fill = (list) => {
    let text = '';
    for (let i = 0; `${text} ${list[i % list.length]}`.trim().length <= 200; i += 1) text = `${text} ${list[i % list.length]}`.trim();
    return text;
  };
  return [
    { kind: 'commonest word', query: ten[0] },
    { kind: 'ten commonest words', query: ten.join(' ') },
    { kind: 'ten commonest, last unfinished', query: [...ten.slice(0, 9), ten[9].slice(0, 3)].join(' ') },
    { kind: 'ten common words, each mistyped', query: long.map((word) => `${word.slice(0, 2)}${word[3]}${word[2]}${word.slice(4)}`).join(' ') },
    { kind: 'one word repeated to 200 characters', query: fill([ten[0]]) },
    { kind: '200 characters of common words', query: fill(common.slice(0, 40)) },
    { kind: 'three-letter prefix of the commonest', query: ten[0].slice(0, 3) },
  ];
}

function summary(samples) {
  const sorted = Float64Array.from(samples).sort();
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

/**
 * Wall time and CPU time of `fn`. The CPU time (of this process, from getrusage) leaves out the
 * time other work on a busy machine took the CPU away; the goals are judged on it, and both are
 * reported.
 */
const time = (fn) => {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const value = fn();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, value };
};

const ENGINES = {
  lectern: (documents) => buildSearchIndex(documents),
  minisearch: (documents) => buildMiniSearchIndex(documents),
  'minisearch-topk': (documents) => buildMiniSearchIndex(documents, { topK: true }),
};

function measure(engine, corpus, documents) {
  const before = heapUsed();
  const { ms: buildMs, cpuMs: buildCpuMs, value: index } = time(() => ENGINES[engine](documents));
  const after = heapUsed();
  const indexBytes = after - before;
  log(
    `${engine}, ${corpus}, ${documents.length} posts: built in ${(buildMs / 1000).toFixed(2)} s (${(buildCpuMs / 1000).toFixed(2)} s of CPU); heap +${(indexBytes / 2 ** 20).toFixed(1)} MiB`,
  );
  const list = queries(documents, QUERIES);
  for (const { query } of list) index.search(query, LIMIT); // warm-up: every code path compiled
  const byKind = new Map();
  const all = [];
  const allCpu = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const { kind, query } of list) {
      const { ms, cpuMs, value } = time(() => index.search(query, LIMIT));
      all.push(ms);
      allCpu.push(cpuMs);
      if (!byKind.has(kind)) byKind.set(kind, { samples: [], cpu: [], totals: [] });
      byKind.get(kind).samples.push(ms);
      byKind.get(kind).cpu.push(cpuMs);
      if (round === 0) byKind.get(kind).totals.push(value.total);
    }
  }
  const kinds = [...byKind].map(([kind, { samples, cpu, totals }]) => ({
    kind,
    ...summary(samples),
    cpu: summary(cpu),
    medianMatches: [...totals].sort((a, b) => a - b)[Math.floor(totals.length / 2)],
  }));
  // The worst queries are slow on MiniSearch (seconds each): fewer runs there.
  const runs = engine === 'lectern' ? 55 : 6;
  const worst = worstQueries(documents).map(({ kind, query }) => {
    const samples = [];
    const cpu = [];
    let total = 0;
    for (let i = 0; i < runs; i += 1) {
      const { ms, cpuMs, value } = time(() => index.search(query, LIMIT));
      if (i >= runs / 10) {
        samples.push(ms);
        cpu.push(cpuMs);
      }
      total = value.total;
    }
    return { kind, query, words: queryWords(query).length, matches: total, ...summary(samples), cpu: summary(cpu) };
  });
  const search = { ...summary(all), cpu: summary(allCpu) };
  log(
    `  mix of ${list.length} queries × ${ROUNDS}: p50 ${search.p50.toFixed(3)} ms, p99 ${search.p99.toFixed(3)} ms, max ${search.max.toFixed(3)} ms; CPU p50 ${search.cpu.p50.toFixed(3)} ms, p99 ${search.cpu.p99.toFixed(3)} ms`,
  );
  for (const row of kinds)
    log(
      `    ${row.kind.padEnd(12)} p50 ${row.p50.toFixed(3)} ms  p99 ${row.p99.toFixed(3)} ms  CPU p99 ${row.cpu.p99.toFixed(3)} ms  (median ${row.medianMatches} matching posts)`,
    );
  for (const row of worst)
    log(
      `    worst: ${row.kind.padEnd(38)} p50 ${row.p50.toFixed(3)} ms  p99 ${row.p99.toFixed(3)} ms  CPU p99 ${row.cpu.p99.toFixed(3)} ms  (${row.matches} posts)`,
    );
  return {
    engine,
    corpus,
    posts: documents.length,
    build: { ms: buildMs, cpuMs: buildCpuMs, heapBefore: before, heapAfter: after, indexBytes },
    search,
    kinds,
    worst,
  };
}

pinSelf(1);
const runs = PARTS.has('engines') ? [] : (previous?.runs ?? []);
for (const corpus of PARTS.has('engines') ? ['generated', 'real'] : []) {
  for (const size of SIZES) {
    log(`generating ${size} ${corpus} posts`);
    let documents = posts(size, corpus);
    const engines = size <= 10_000 ? Object.keys(ENGINES) : ['lectern'];
    for (const engine of engines) runs.push(measure(engine, corpus, documents));
    documents = undefined;
  }
}

// foldText: 50 snippets of a long text, as the search page makes them.
const ascii = 'The "quoted" words of a long post, and more of them, for a page. '.repeat(360).slice(0, 23_000);
const curly = ascii.replaceAll('"', '\u201c');
const foldMs = (text) => {
  for (let i = 0; i < 50; i += 1) foldText(text);
  return summary(
    Array.from(
      { length: 20 },
      () =>
        time(() => {
          for (let i = 0; i < 50; i += 1) foldText(text);
        }).cpuMs,
    ),
  ).p50;
};
const fold = PARTS.has('fold') ? { characters: ascii.length, texts: 50, asciiMs: foldMs(ascii), curlyMs: foldMs(curly) } : previous?.fold;
if (PARTS.has('fold'))
  log(`foldText of 50 texts of ${ascii.length} characters: ${fold.asciiMs.toFixed(2)} ms ASCII, ${fold.curlyMs.toFixed(2)} ms with curly quotes (CPU)`);

/** A GET on a kept-alive connection; resolves with the milliseconds it took. */
function timedGet(agent, baseUrl, pathname) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get({ hostname, port, path: pathname, agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - started) : reject(new Error(`${pathname}: ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

/** One client reading `pathname` in a loop for `seconds`: its latencies. */
async function readLoop(baseUrl, pathname, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) samples.push(await timedGet(agent, baseUrl, pathname));
  agent.destroy();
  return samples;
}

/** The 10,000 `real` posts built with next build in `site` (the working tree's copy, or a commit's), once per source and runtime. */
async function buildSearchSite({ site, digest: source }, contentDir) {
  const distDir = '.next-bench-search';
  const digest = `${source} ${runtimeVersion(runtimeOf(site))} ${contentDir}`;
  const stamp = path.join(site, distDir, '.bench-source');
  if (!(fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === digest && fs.existsSync(contentDir))) {
    log(`building them with next build in ${site} (BUILD_WORKERS=1, Node.js ${runtimeVersion(runtimeOf(site))})`);
    const result = await nextBuild({ distDir, contentDir, timeoutMs: 45 * 60_000, env: { BUILD_WORKERS: '1' }, site });
    if (!result.ok)
      throw new Error(
        `next build failed:\n${result.lines
          .slice(-30)
          .map((entry) => entry.line)
          .join('\n')}`,
      );
    fs.writeFileSync(stamp, digest);
    log(`built in ${result.wallSeconds.toFixed(0)} s`);
  }
  return distDir;
}

/** A cached read's latencies idle, then while 4 clients loop `searchPath`; and those searches' latencies. */
async function readsUnderSearch(baseUrl, searchPath) {
  await readLoop(baseUrl, '/llms.txt', 1); // warm: the read is cached
  const idle = summary(await readLoop(baseUrl, '/llms.txt', SECONDS));
  let searching = true;
  const searches = [];
  const searchers = Array.from({ length: 4 }, async () => {
    const own = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (searching) searches.push(await timedGet(own, baseUrl, searchPath));
    own.destroy();
  });
  await sleep(500);
  const loaded = summary(await readLoop(baseUrl, '/llms.txt', SECONDS));
  searching = false;
  await Promise.all(searchers);
  return { idle, loaded, searches: summary(searches) };
}

async function underSearch() {
  // --http-posts=N: another size for the part over HTTP (a smoke run); its build is kept apart.
  const count = Number(options['http-posts'] ?? 10_000);
  const contentDir = path.join(TMP, count === 10_000 ? 'search-content' : `search-content-${count}`);
  const postsDir = path.join(contentDir, 'posts');
  if (!fs.existsSync(postsDir) || fs.readdirSync(postsDir).length !== count) {
    log(`writing ${count} real-frequency posts`);
    generate(contentDir, count, 1, VOCABULARY);
  }
  const distDir = await buildSearchSite({ site: SITE, digest: snapshotSite().digest }, contentDir);
  const snapshot = BEFORE ? snapshotRef(BEFORE) : undefined;
  const beforeDist = snapshot ? await buildSearchSite(snapshot, contentDir) : undefined;
  const server = await startLectern({ distDir, env: { CONTENT_DIR: contentDir, PREWARM: '0' } });
  let before;
  try {
    const startLog = fs.readFileSync(server.logFile, 'utf8');
    // Built before the server listened: its line comes before the one saying it listens.
    const builtLine = /search index of [\d,]+ posts built (?:at start )?in \d+ ms(?=\n[\s\S]*lectern production server on)/.exec(startLog)?.[0];
    log(`server log: ${builtLine ?? 'no line about the search index'}`);
    const all = posts(count, 'real');
    const worst = worstQueries(all);
    // Which worst query costs the server most: each once through /api/search (the API refuses none of these but the 200-character one past 10 words).
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const costs = [];
    for (const { kind, query } of worst) {
      const pathname = `/api/search?q=${encodeURIComponent(query)}`;
      const samples = [];
      try {
        for (let i = 0; i < 15; i += 1) samples.push(await timedGet(agent, server.baseUrl, pathname));
        costs.push({ kind, query, pathname, ...summary(samples.slice(5)) });
      } catch (error) {
        costs.push({ kind, query, pathname, refused: String(error.message) });
      }
    }
    agent.destroy();
    const worstHttp = costs.filter((row) => !row.refused).sort((a, b) => b.p50 - a.p50)[0];
    log(`worst query over HTTP: ${worstHttp.kind} (p50 ${worstHttp.p50.toFixed(2)} ms, p99 ${worstHttp.p99.toFixed(2)} ms)`);
    const first = await readsUnderSearch(server.baseUrl, worstHttp.pathname);
    const { idle, loaded, searches: searched } = first;
    log(
      `/llms.txt idle: p50 ${idle.p50.toFixed(2)} ms, p99 ${idle.p99.toFixed(2)} ms; under 4 searchers: p50 ${loaded.p50.toFixed(2)} ms, p99 ${loaded.p99.toFixed(2)} ms (${(loaded.p99 / idle.p99).toFixed(2)}×); searches p50 ${searched.p50.toFixed(2)} ms, ${searched.count} in all`,
    );
    let beforeAfter;
    if (snapshot) {
      // The commit's server on its own runtime, the same posts and the same worst query; the two
      // servers measured in turn (the one not measured is idle), the first round as above.
      before = await startLectern({ distDir: beforeDist, site: snapshot.site, name: 'lectern-before', env: { CONTENT_DIR: contentDir, PREWARM: '0' } });
      const rounds = { after: [first], before: [] };
      for (let round = 1; round <= SEARCH_ROUNDS; round += 1) {
        for (const id of round % 2 ? ['before', 'after'] : ['after', 'before']) {
          if (round === 1 && id === 'after') continue;
          const measured = await readsUnderSearch((id === 'after' ? server : before).baseUrl, worstHttp.pathname);
          rounds[id].push(measured);
          log(
            `round ${round} ${id.padEnd(6)} /llms.txt p99 idle ${measured.idle.p99.toFixed(2)} ms, under search ${measured.loaded.p99.toFixed(2)} ms; /api/search p50 ${measured.searches.p50.toFixed(2)} ms p99 ${measured.searches.p99.toFixed(2)} ms`,
          );
        }
      }
      beforeAfter = {
        ref: snapshot.sha,
        node: { after: runtimeVersion(runtimeOf(SITE)), before: snapshot.nodeVersion },
        query: worstHttp.kind,
        rounds,
      };
    }
    return {
      posts: count,
      builtAtStart: builtLine ?? null,
      queries: costs,
      worst: worstHttp,
      idle,
      loaded,
      searches: searched,
      ratio: loaded.p99 / idle.p99,
      beforeAfter,
    };
  } finally {
    await server.stop();
    await before?.stop();
  }
}

const http10k = HTTP && PARTS.has('http') ? await underSearch() : previous?.http;

const at = (corpus, size, engine = 'lectern') => runs.find((run) => run.corpus === corpus && run.posts === size && run.engine === engine);
const goals = {};
for (const size of SIZES.filter((size) => GOALS.p99Ms[size]))
  goals[`p99at${size}`] = ['generated', 'real'].every((corpus) => at(corpus, size)?.search.cpu.p99 < GOALS.p99Ms[size]);
const tenK = ['generated', 'real'].map((corpus) => at(corpus, 10_000)).filter(Boolean);
if (tenK.length) {
  goals.memory = tenK.every((run) => run.build.indexBytes < GOALS.indexBytes);
  goals.buildTime = tenK.every((run) => run.build.cpuMs < GOALS.buildMs);
  goals.worst = tenK.every((run) => Math.max(...run.worst.map((row) => row.cpu.p99)) < GOALS.worstMs);
}
if (http10k) goals.readUnderSearch = http10k.ratio <= GOALS.readRatio;
log(
  `goals: ${Object.entries(goals)
    .map(([name, ok]) => `${name} ${ok ? 'met' : 'missed'}`)
    .join(', ')}`,
);

saveResult('search', {
  loadAverage: (await import('node:os')).loadavg(),
  settings: { sizes: SIZES, queries: QUERIES, rounds: ROUNDS, limit: LIMIT, vocabulary: { words: VOCABULARY.words.length, occurrences: VOCABULARY.total } },
  runs,
  fold,
  http: http10k,
  goals,
});
