// Build: `next build` wall time, CPU time and peak memory for generated content of
// 100, 1,000 and 10,000 posts, beside Hugo building the same markdown files.
//   node bench/build.mjs [--sizes=100,1000,10000] [--timeout-minutes=45] [--hugo-runs=3] [--before=REF] [--build-rounds=2] [--warm=false]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generate } from './generate-posts.mjs';
import {
  cliOptions,
  SITE,
  TMP,
  log,
  measureCommand,
  median,
  mkdirp,
  nextBuild,
  percentile,
  runtimeOf,
  runtimeVersion,
  saveResult,
  snapshotRef,
  snapshotSite,
  startLectern,
} from './lib/common.mjs';

const options = cliOptions();
const SIZES = (options.sizes ?? process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const TIMEOUT_MINUTES = Number(options['timeout-minutes'] ?? process.env.BENCH_BUILD_TIMEOUT_MINUTES ?? 45);
const HUGO_RUNS = Number(options['hugo-runs'] ?? 3);
const DIST = '.next-bench-build';
// Older posts whose first request is timed after the largest build (the long tail, past PRERENDER_POSTS).
const LONG_TAIL_SAMPLE = Number(options['long-tail-sample'] ?? 200);
// --workers=N builds with BUILD_WORKERS=N (static-generation workers) and keeps its results apart
// from the default build's (part build-workers), for the memory rows of the goals table.
const WORKERS = options.workers === undefined ? undefined : Number(options.workers);
const PART = WORKERS === undefined ? 'build' : 'build-workers';
// --before=REF: at each size the project at that commit (on its own runtime) builds the same posts
// cold too, --build-rounds times (default 2, 1 with --rounds=1), alternating with the working tree.
const BEFORE = options.before;
// --warm=false: no warm rebuild and no long tail (the cold builds only).
const WARM = options.warm !== 'false';
const BUILD_ROUNDS = Math.max(Number(options['build-rounds'] ?? (options.rounds === '1' ? 1 : 2)), 1);

/** The phases Next prints, each with the second its line arrived. */
function phases(lines, totalSeconds) {
  const at = (pattern) => lines.find((entry) => pattern.test(entry.line))?.t;
  const compiled = at(/Compiled successfully|Compiled with warnings/);
  const typescript = at(/Finished TypeScript|Linting and checking validity of types/);
  const generatingStart = at(/Generating static pages.*\(0\/\d+\)/);
  const generated = at(/✓ Generating static pages/);
  const pagesLine = lines.find((entry) => /Generating static pages.*\(\d+\/(\d+)\)/.test(entry.line))?.line;
  const pages = pagesLine ? Number(/\(\d+\/(\d+)\)/.exec(pagesLine)[1]) : undefined;
  const workers = Number(/using (\d+) workers?/.exec(pagesLine ?? '')?.[1]) || undefined;
  const progress = lines
    .map((entry) => ({ t: entry.t, match: /Generating static pages.*\((\d+)\/(\d+)\)/.exec(entry.line) }))
    .filter((entry) => entry.match)
    .map((entry) => ({ t: Math.round(entry.t * 10) / 10, done: Number(entry.match[1]) }));
  const span = (from, to) => (from !== undefined && to !== undefined ? to - from : undefined);
  return {
    pages,
    workers,
    compileSeconds: compiled,
    typescriptSeconds: span(compiled, typescript),
    collectSeconds: span(typescript ?? compiled, generatingStart),
    generateSeconds: span(generatingStart, generated),
    finalizeSeconds: span(generated, totalSeconds),
    progress,
  };
}

function hugoSite(dir, postsDir) {
  fs.rmSync(dir, { recursive: true, force: true });
  const layouts = mkdirp(path.join(dir, 'layouts', '_default'));
  fs.writeFileSync(
    path.join(dir, 'config.yaml'),
    [
      'baseURL: http://localhost:3000/',
      'title: The Readable Web',
      'languageCode: en',
      'disableKinds: []',
      'taxonomies:',
      '  tag: tags',
      'markup:',
      '  goldmark:',
      '    renderer:',
      '      unsafe: false',
      '  highlight:',
      '    noClasses: true',
      '  tableOfContents:',
      '    startLevel: 2',
      '    endLevel: 3',
      'module:',
      '  mounts:',
      `    - source: ${postsDir}`,
      '      target: content/posts',
      '',
    ].join('\n'),
  );
  const base = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ .Title }} · {{ .Site.Title }}</title>{{ with .Description }}<meta name="description" content="{{ . }}">{{ end }}
<link rel="canonical" href="{{ .Permalink }}">{{ range .AlternativeOutputFormats }}<link rel="{{ .Rel }}" type="{{ .MediaType.Type }}" href="{{ .Permalink }}">{{ end }}
</head><body><header><a href="/">{{ .Site.Title }}</a> <a href="/posts/">Blog</a> <a href="/tags/">Tags</a></header>
<main>{{ block "main" . }}{{ end }}</main><footer>{{ .Site.Title }}</footer></body></html>
`;
  fs.writeFileSync(path.join(layouts, 'baseof.html'), base);
  fs.writeFileSync(
    path.join(layouts, 'single.html'),
    `{{ define "main" }}<article><h1>{{ .Title }}</h1><p><time datetime="{{ .Date.Format "2006-01-02" }}">{{ .Date.Format "2 January 2006" }}</time>{{ with .Params.updated }} · Updated {{ . }}{{ end }} · {{ .ReadingTime }} min read</p>
<ul>{{ range .Params.tags }}<li><a href="{{ "tags/" | relURL }}{{ . | urlize }}/">{{ . }}</a></li>{{ end }}</ul>
<nav>{{ .TableOfContents }}</nav>{{ .Content }}</article>{{ end }}
`,
  );
  fs.writeFileSync(
    path.join(layouts, 'list.html'),
    `{{ define "main" }}<h1>{{ .Title }}</h1><ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a> <time>{{ .Date.Format "2006-01-02" }}</time><p>{{ .Description }}</p></li>{{ end }}</ul>{{ end }}
`,
  );
  fs.writeFileSync(
    path.join(dir, 'layouts', 'index.html'),
    `{{ define "main" }}<h1>{{ .Site.Title }}</h1><ul>{{ range first 10 (where .Site.RegularPages "Section" "posts") }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}
`,
  );
}

function countFiles(dir, predicate) {
  let count = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile() && predicate(entry.name)) count += 1;
  return count;
}

async function main() {
  snapshotSite();
  const snapshot = BEFORE ? snapshotRef(BEFORE) : undefined;
  const sizes = [];
  for (const count of SIZES) {
    const contentDir = path.join(TMP, `content-${count}`);
    const generated = generate(contentDir, count);
    log(`generated ${count} posts (${generated.averageBytes} bytes on average) in ${contentDir}`);

    // Hugo first: quick, and it tells us the files are sound markdown.
    const hugoDir = path.join(TMP, `hugo-${count}`);
    hugoSite(hugoDir, path.join(contentDir, 'posts'));
    const hugoRuns = [];
    for (let run = 0; run < HUGO_RUNS; run += 1) {
      const out = path.join(hugoDir, 'public');
      fs.rmSync(out, { recursive: true, force: true });
      const result = await measureCommand('hugo', ['--quiet', '--source', hugoDir, '--destination', out, '--cleanDestinationDir', '--noBuildLock'], {
        cwd: hugoDir,
      });
      if (!result.ok) throw new Error(`hugo failed:\n${result.lines.map((entry) => entry.line).join('\n')}`);
      hugoRuns.push(result);
    }
    const hugoPages = countFiles(path.join(hugoDir, 'public'), (name) => name.endsWith('.html'));
    const hugo = {
      runs: hugoRuns.map((run) => Math.round(run.wallSeconds * 1000) / 1000),
      wallSeconds: median(hugoRuns.map((run) => run.wallSeconds)),
      cpuSeconds: median(hugoRuns.map((run) => run.cpuSeconds)),
      peakRssBytes: Math.max(...hugoRuns.map((run) => run.peakTreeRssBytes)),
      cpuPressure: median(hugoRuns.map((run) => run.cpuPressure)),
      htmlFiles: hugoPages,
    };
    log(
      `hugo ${count}: ${hugo.wallSeconds.toFixed(2)} s wall, ${hugo.cpuSeconds.toFixed(2)} s CPU, ${(hugo.peakRssBytes / 2 ** 20).toFixed(0)} MiB peak, ${hugoPages} HTML files`,
    );

    log(`next build ${count} posts, cold (timeout ${TIMEOUT_MINUTES} min)`);
    const next = await timedBuild(contentDir, false);
    log(
      `next ${count}: ${next.ok ? 'ok' : next.timedOut ? 'TIMED OUT' : 'FAILED'} ${next.wallSeconds.toFixed(1)} s wall, ${next.cpuSeconds.toFixed(1)} s CPU, ${(next.peakTreeRssBytes / 2 ** 20).toFixed(0)} MiB peak (tree), ` +
        `compile ${next.compileSeconds?.toFixed(1)} s, types ${next.typescriptSeconds?.toFixed(1)} s, collect ${next.collectSeconds?.toFixed(1)} s, static pages ${next.generateSeconds?.toFixed(1)} s (${next.pages} pages)`,
    );
    // Before and after first, so they are kept (saved below) if the rest runs out of time.
    const beforeAfter = snapshot && next.ok ? await beforeAndAfter(snapshot, contentDir, next) : undefined;
    if (beforeAfter) save([...sizes, { posts: count, averagePostBytes: generated.averageBytes, next, hugo, beforeAfter, loadAverage: os.loadavg() }]);
    // The author's loop: one post edited, rebuilt with the build cache the cold build left
    // (with --before, the working tree's last cold build).
    let warm;
    if (next.ok && WARM) {
      const edited = editOnePost(contentDir);
      log(`next build ${count} posts, warm, after editing ${edited}`);
      warm = { edited, ...(await timedBuild(contentDir, true)) };
      log(
        `next ${count} warm: ${warm.ok ? 'ok' : 'FAILED'} ${warm.wallSeconds.toFixed(1)} s wall, ${warm.cpuSeconds.toFixed(1)} s CPU (cold ${next.wallSeconds.toFixed(1)} s: ${(warm.wallSeconds / next.wallSeconds).toFixed(2)}×)`,
      );
    }
    const longTail = next.ok && WARM && count === SIZES[SIZES.length - 1] ? await firstRequests(contentDir) : undefined;
    sizes.push({ posts: count, averagePostBytes: generated.averageBytes, next, warm, longTail, hugo, beforeAfter, loadAverage: os.loadavg() });
    fs.rmSync(path.join(SITE, DIST), { recursive: true, force: true });
    fs.rmSync(path.join(hugoDir, 'public'), { recursive: true, force: true });
    // Partial results are worth keeping if a later size runs out of time.
    save(sizes);
  }
}

function save(sizes) {
  saveResult(PART, {
    settings: {
      workers: WORKERS ?? 'one per CPU',
      sizes: SIZES,
      timeoutMinutes: TIMEOUT_MINUTES,
      hugoRuns: HUGO_RUNS,
      cores: os.availableParallelism(),
      prerenderPosts: process.env.PRERENDER_POSTS ?? 'default',
      before: BEFORE,
      buildRounds: BEFORE ? BUILD_ROUNDS : undefined,
    },
    sizes,
  });
}

/** The figures of a cold build compared before and after. */
const buildFigures = (build) => ({
  wallSeconds: build.wallSeconds,
  cpuSeconds: build.cpuSeconds,
  peakTreeRssBytes: build.peakTreeRssBytes,
  cpuPressure: build.cpuPressure,
});

/**
 * The same posts built cold by the project at --before (its copy, on its own runtime) and again by
 * the working tree, alternating: the cold build above is the working tree's first round, then
 * before, after, before, … until each side has BUILD_ROUNDS builds.
 */
async function beforeAndAfter(snapshot, contentDir, first) {
  const rounds = { after: [buildFigures(first)], before: [] };
  const beforeContent = ownContent(snapshot.site, contentDir);
  for (let round = 1; round <= BUILD_ROUNDS; round += 1) {
    for (const id of round < BUILD_ROUNDS ? ['before', 'after'] : ['before']) {
      const site = id === 'before' ? snapshot.site : SITE;
      log(
        `next build ${path.basename(contentDir)}, cold, ${id === 'before' ? `at ${snapshot.short} (Node.js ${snapshot.nodeVersion})` : 'working tree'}, round ${round}`,
      );
      const result = await timedBuild(id === 'before' ? beforeContent : contentDir, false, site);
      if (!result.ok) throw new Error(`the ${id} build failed:\n${(result.tail ?? []).join('\n')}`);
      rounds[id].push(buildFigures(result));
      log(
        `  ${id}: ${result.wallSeconds.toFixed(1)} s wall, ${result.cpuSeconds.toFixed(1)} s CPU, ${(result.peakTreeRssBytes / 2 ** 20).toFixed(0)} MiB peak`,
      );
    }
  }
  fs.rmSync(path.join(snapshot.site, DIST), { recursive: true, force: true });
  return { ref: snapshot.sha, node: { after: runtimeVersion(runtimeOf(SITE)), before: snapshot.nodeVersion }, rounds };
}

/**
 * The generated posts beside the --before project's own site.yaml, home page, apps and products:
 * what an author declares beside the posts follows that commit's schema, not the working tree's.
 */
function ownContent(site, contentDir) {
  const dir = `${contentDir}-before`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(path.join(contentDir, 'posts'), path.join(dir, 'posts'), { recursive: true });
  const own = path.join(site, 'content');
  for (const name of fs.readdirSync(own)) if (name !== 'posts') fs.cpSync(path.join(own, name), path.join(dir, name), { recursive: true });
  return dir;
}

/** Appends a paragraph to the post in the middle of the list: an edit that changes one post and nothing else. */
function editOnePost(contentDir) {
  const posts = fs.readdirSync(path.join(contentDir, 'posts')).sort();
  const name = posts[Math.floor(posts.length / 2)];
  fs.appendFileSync(path.join(contentDir, 'posts', name), `\nAn edit made at ${new Date().toISOString()}.\n`);
  return name;
}

async function timedBuild(contentDir, keepCache, site = SITE) {
  let lastProgress = 0;
  const result = await nextBuild({
    site,
    distDir: DIST,
    contentDir,
    keepCache,
    env: WORKERS === undefined ? {} : { BUILD_WORKERS: String(WORKERS) },
    timeoutMs: TIMEOUT_MINUTES * 60_000,
    onLine: ({ t, line }) => {
      if (/Compiled|Finished TypeScript|Collecting page data|✓ Generating|Finalizing|rror/.test(line) || t - lastProgress > 60) {
        lastProgress = t;
        log(`  ${t.toFixed(0).padStart(5)} s  ${line.trim().slice(0, 140)}`);
      }
    },
  });
  const next = {
    ok: result.ok,
    timedOut: result.timedOut,
    wallSeconds: result.wallSeconds,
    cpuSeconds: result.cpuSeconds,
    cpuPressure: result.cpuPressure,
    peakTreeRssBytes: result.peakTreeRssBytes,
    peakProcessRssBytes: result.peakProcessRssBytes,
    ...phases(result.lines, result.wallSeconds),
    tail: result.ok ? undefined : result.lines.slice(-30).map((entry) => entry.line),
  };
  if (result.ok) next.htmlFiles = countFiles(path.join(site, DIST, 'server', 'app'), (name) => name.endsWith('.html'));
  return next;
}

/**
 * The long tail: lectern's server on the build just made, with no background generation, and
 * the first request of LONG_TAIL_SAMPLE older posts' pages (generated then), one at a time,
 * beside the first request of as many pages the build generated (read from disk, not memory).
 */
async function firstRequests(contentDir) {
  const list = JSON.parse(fs.readFileSync(path.join(SITE, DIST, 'lectern', 'published.json'), 'utf8'));
  const older = list.slugs.slice(list.prerendered);
  if (older.length === 0) return undefined;
  const server = await startLectern({ distDir: DIST, env: { CONTENT_DIR: contentDir, PREWARM: '0' } });
  const time = async (slugs) => {
    const times = [];
    for (const slug of slugs) {
      const started = performance.now();
      const response = await fetch(`${server.baseUrl}/blog/${slug}`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`/blog/${slug} answered ${response.status}`);
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b);
  };
  try {
    const step = Math.max(1, Math.floor(older.length / LONG_TAIL_SAMPLE));
    const generated = await time(older.filter((_, index) => index % step === 0).slice(0, LONG_TAIL_SAMPLE));
    const built = await time(list.slugs.slice(0, Math.min(list.prerendered, LONG_TAIL_SAMPLE)));
    const summary = (times) => ({ count: times.length, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: times[times.length - 1] });
    const result = { prerendered: list.prerendered, older: older.length, generated: summary(generated), built: summary(built) };
    log(
      `long tail: first request of ${result.generated.count} older posts p50 ${result.generated.p50Ms.toFixed(0)} ms, p99 ${result.generated.p99Ms.toFixed(0)} ms; of built posts p50 ${result.built.p50Ms?.toFixed(1)} ms, p99 ${result.built.p99Ms?.toFixed(1)} ms`,
    );
    return result;
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
