// Search: the index of 10,000 generated posts (bench/generate-posts.mjs) built with
// lib/search, the heap it takes (heap used after a full GC, before and after the build, with
// the posts themselves held throughout), and the time of one search as /api/search runs it
// (MiniSearch's query, then the snippets of the results) over a few hundred varied queries:
// words, tags, prefixes, typos, two and three words, and words no post has. The generator's
// vocabulary is small, so most words match thousands of posts: a hard case for the ranking.
// Calls lib/search directly; run through tsx with the GC exposed:
//   node --expose-gc --import tsx bench/search.mjs [--posts=10000] [--queries=400] [--rounds=5]
import { splitFrontmatter } from '../lib/content/frontmatter.ts';
import { buildSearchIndex } from '../lib/search/index.ts';
import { makePost, prng } from './generate-posts.mjs';
import { cliOptions, log, percentile, pinSelf, saveResult } from './lib/common.mjs';

const options = cliOptions();
const POSTS = Number(options.posts ?? 10_000);
const QUERIES = Number(options.queries ?? 400);
const ROUNDS = Number(options.rounds ?? 5);
const LIMIT = 10;
const GOALS = { p99Ms: 5, indexBytes: 100 * 2 ** 20 };

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc --import tsx bench/search.mjs');
  process.exit(2);
}

function heapUsed() {
  for (let i = 0; i < 3; i += 1) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

function posts(count) {
  const random = prng(1);
  return Array.from({ length: count }, (_, index) => {
    const { slug, source } = makePost(index, count, random);
    const { data, body } = splitFrontmatter(source);
    return { slug, title: data.title, description: data.description, tags: data.tags ?? [], date: String(data.date), body };
  });
}

/** Queries of several kinds, drawn from the posts' own words so most of them match. */
function queries(all, count) {
  const random = prng(42);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const wordsOf = (text) => text.toLowerCase().match(/[a-z]{3,}/g) ?? [];
  const titleWords = [...new Set(all.flatMap((post) => wordsOf(post.title)))];
  const bodyWords = [...new Set(all.slice(0, 200).flatMap((post) => wordsOf(post.body)))];
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
    'two words': () => wordsOf(pick(all).title).slice(0, 2).join(' '),
    'three words': () => wordsOf(pick(all).title).slice(1, 4).join(' '),
    'no match': () => pick(['zebra', 'quixotic', 'xylophone', 'kumquat', 'zeppelin']),
  };
  const names = Object.keys(kinds);
  return Array.from({ length: count }, (_, i) => {
    const kind = names[i % names.length];
    return { kind, query: kinds[kind]() };
  });
}

function summary(samples) {
  const sorted = Float64Array.from(samples).sort();
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] };
}

pinSelf(1);
log(`generating ${POSTS} posts`);
const documents = posts(POSTS);
const bodyBytes = documents.reduce((sum, post) => sum + Buffer.byteLength(post.body), 0);

const before = heapUsed();
const buildStarted = performance.now();
const index = buildSearchIndex(documents);
const buildMs = performance.now() - buildStarted;
const after = heapUsed();
log(`index of ${index.size} posts built in ${(buildMs / 1000).toFixed(1)} s; heap +${((after - before) / 2 ** 20).toFixed(1)} MiB`);

const list = queries(documents, QUERIES);
for (const { query } of list) index.search(query, LIMIT); // warm-up: every code path compiled
const byKind = new Map();
const all = [];
let matched = 0;
for (let round = 0; round < ROUNDS; round += 1) {
  for (const { kind, query } of list) {
    const started = process.hrtime.bigint();
    const { total } = index.search(query, LIMIT);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    all.push(ms);
    if (!byKind.has(kind)) byKind.set(kind, { samples: [], totals: [] });
    byKind.get(kind).samples.push(ms);
    if (round === 0) {
      byKind.get(kind).totals.push(total);
      if (total > 0) matched += 1;
    }
  }
}

const overall = summary(all);
const kinds = [...byKind].map(([kind, { samples, totals }]) => ({
  kind,
  ...summary(samples),
  medianMatches: [...totals].sort((a, b) => a - b)[Math.floor(totals.length / 2)],
}));
const indexBytes = after - before;
log(
  `search (query + snippets, limit ${LIMIT}) over ${list.length} queries × ${ROUNDS}: p50 ${overall.p50.toFixed(3)} ms, p99 ${overall.p99.toFixed(3)} ms, max ${overall.max.toFixed(3)} ms`,
);
for (const row of kinds)
  log(
    `  ${row.kind.padEnd(12)} p50 ${row.p50.toFixed(3)} ms  p99 ${row.p99.toFixed(3)} ms  max ${row.max.toFixed(3)} ms  (median ${row.medianMatches} matching posts)`,
  );
log(`goals: p99 < ${GOALS.p99Ms} ms: ${overall.p99 < GOALS.p99Ms ? 'yes' : 'no'}; index < 100 MiB: ${indexBytes < GOALS.indexBytes ? 'yes' : 'no'}`);

saveResult('search', {
  loadAverage: (await import('node:os')).loadavg(),
  settings: { posts: POSTS, queries: list.length, rounds: ROUNDS, limit: LIMIT, bodyBytes },
  build: { ms: buildMs, heapBefore: before, heapAfter: after, indexBytes },
  search: overall,
  kinds,
  queriesWithMatches: matched,
  goals: { p99: overall.p99 < GOALS.p99Ms, memory: indexBytes < GOALS.indexBytes },
});
