// Regenerates the tables of BENCHMARKS.md from bench/.work/results/*.json. Only the blocks
// between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` are rewritten; every other line
// (other sections, such as Lighthouse, and hand-written notes) stays as it is, and so does
// every block whose part has no results here (a part not run on this machine), so running
// one part updates its own numbers and leaves the others as last measured.
//   node bench/report.mjs
import fs from 'node:fs';
import path from 'node:path';
import { median, REPO, RESULTS, readJson } from './lib/common.mjs';

const FILE = path.join(REPO, 'BENCHMARKS.md');
const results = Object.fromEntries(
  [
    'reads',
    'build',
    'build-workers',
    'limits',
    'store',
    'flood',
    'load',
    'search',
    'weight',
    'profile',
    'render',
    'build-profile',
    'build-memory',
    'newsletter',
    'publish',
    'downloads',
    'fediverse',
  ].map((part) => [part, readJson(path.join(RESULTS, `${part}.json`))]),
);

const GOALS = {
  readRatio: 0.9,
  readP99Ms: 5,
  buildHugoRatio: 10,
  buildPeakBytes: 2 * 2 ** 30,
  coldBuild1000Seconds: 30,
  warmBuildShare: 1 / 3,
  memoryP99Ms: 1,
  redisP99Ms: 2,
  floodGrowthBytes: 64 * 2 ** 20,
  madeUpGrowthBytes: 32 * 2 ** 20,
  searchP99Ms: { 10000: 5, 50000: 15 },
  searchWorstMs: 20,
  searchIndexBytes: 100 * 2 ** 20,
  searchBuildMs: 5000,
  searchReadRatio: 2,
  publishSeconds: 5,
  readAtTheMinuteMs: 200,
  // Before and after (--before): no figure worse by more than this beyond the run-to-run noise.
  worseShare: 0.05,
};

const int = (value) => (value === undefined || !Number.isFinite(value) ? '–' : Math.round(value).toLocaleString('en-US'));
const ms = (value, digits = 2) => (value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits));
const ratio = (value) => (value === undefined || !Number.isFinite(value) ? '–' : value >= 10 ? value.toFixed(1) : value.toFixed(2));
const seconds = (value) => (value === undefined || !Number.isFinite(value) ? '–' : value >= 100 ? value.toFixed(0) : value.toFixed(1));
const signedMib = (bytes) => (bytes === undefined || !Number.isFinite(bytes) ? '–' : `${bytes < 0 ? '−' : '+'}${(Math.abs(bytes) / 2 ** 20).toFixed(1)} MiB`);
const mib = (bytes) => (bytes === undefined || !Number.isFinite(bytes) ? '–' : `${Math.round(bytes / 2 ** 20).toLocaleString('en-US')} MiB`);
const kib = (bytes) => (bytes === undefined || !Number.isFinite(bytes) ? '–' : `${(bytes / 1024).toFixed(1)} KiB`);
const yes = (ok) => (ok === undefined ? '–' : ok ? '**met**' : '**missed**');
const day = (iso) => (iso ? iso.slice(0, 16).replace('T', ' ') + ' UTC' : '–');

/** A markdown table: the first `left` columns left-aligned (text), the others right-aligned (numbers). */
function table(header, rows, left = 1) {
  const align = header.map((_, i) => (i < left ? '---' : '---:'));
  return [`| ${header.join(' | ')} |`, `| ${align.join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

function machineBlock(existing) {
  const any = Object.values(results).find(Boolean);
  if (!any) return undefined;
  const m = any.machine;
  // Parts measured earlier and not in this run keep their dates.
  const earlier = /^\| measured \| (.*) \|$/m.exec(existing ?? '')?.[1] ?? '';
  const dates = new Map(
    earlier
      .split(', ')
      .map((entry) => /^([\w-]+) (.+)$/.exec(entry))
      .filter(Boolean)
      .map((match) => [match[1], match[2]]),
  );
  for (const [part, value] of Object.entries(results)) if (value) dates.set(part, day(value.finishedAt));
  const when = [...dates.entries()].map(([part, date]) => `${part} ${date}`).join(', ');
  // A fact this machine lacks (nginx or Hugo not installed for the parts run here) keeps the row measured before.
  const keepEarlier = (row) =>
    /undefined/.test(row) ? ((existing ?? '').split('\n').find((line) => line.startsWith(row.slice(0, row.indexOf(' | ') + 3))) ?? row) : row;
  return [
    `| | |`,
    `| --- | --- |`,
    `| CPU | ${m.cpu}${m.cpuMHz ? ` (${Math.round(m.cpuMHz)} MHz)` : ''} |`,
    `| cores | ${m.cores} |`,
    `| memory | ${m.memoryGiB} GiB |`,
    `| OS | ${m.kernel} |`,
    `| Node | ${nodeRow(m.node)} |`,
    `| Next | ${m.next} |`,
    `| references | nginx ${m.nginx}, Hugo ${m.hugo}, Redis ${m.redis} (Debian packages) |`,
    `| load tools | wrk (Debian), autocannon ${m.autocannon} |`,
    `| commit | \`${m.commit}\` |`,
    `| measured | ${when} |`,
  ]
    .map(keepEarlier)
    .join('\n');
}

/**
 * At C connections a closed-loop client always has C requests waiting, so the mean latency is
 * C ÷ requests/s: the p99 of each server in those units says how far its tail is from what its
 * throughput alone would give, and what throughput a p99 goal needs.
 */
function p99Line(reads) {
  const c = reads.settings.connections;
  const spread = (id) => {
    const values = reads.summary.map((row) => (row.servers[id].p99 / 1000) * (row.servers[id].rps / c)).filter(Number.isFinite);
    return [Math.min(...values), Math.max(...values)];
  };
  const [lLow, lHigh] = spread('lectern');
  const [aLow, aHigh] = spread('node');
  const needed = (c / (GOALS.readP99Ms / 1000)) * ((lLow + lHigh) / 2);
  return (
    `p99 and throughput: with ${c} connections always waiting, a server's mean latency is ${c} ÷ its requests/s. Measured p99s are ${ratio(lLow)}–${ratio(lHigh)} times that for lectern and ${ratio(aLow)}–${ratio(aHigh)} times for (a), so the tail is mostly the queue of ${c} requests, the same for both; ` +
    `at lectern's middle ratio a p99 under ${GOALS.readP99Ms} ms needs about ${int(needed)} requests/s on a URL.`
  );
}

function readsBlock() {
  const reads = results.reads;
  if (!reads) return undefined;
  const s = reads.settings;
  const lines = [
    `${s.tool}, ${s.connections} connections, ${s.warmupSeconds} s warm-up then ${s.durationSeconds} s per run, ${s.rounds} rounds with the servers interleaved; medians of the rounds. ` +
      `No \`Accept-Encoding\` on either side, so every server sends the same uncompressed bytes (checked byte for byte before the load). ` +
      `${s.pinned ? 'Each server runs pinned to CPU 0 and the load generator to CPU 1.' : 'Not pinned to CPUs.'}${reads.machine?.nice ? ` Servers and load ran at niceness ${reads.machine.nice} (BENCH_NICE).` : ''} ` +
      `CPU pressure from other work on the machine during the runs (Linux PSI, share of time a task waited for a CPU): median ${ms(reads.cpuPressure?.median, 0)} %, worst ${ms(reads.cpuPressure?.max, 0)} %.`,
    '',
    table(
      [
        'URL',
        'bytes',
        'lectern req/s',
        'p50 ms',
        'p99 ms',
        '(a) node:http req/s',
        'p50 ms',
        'p99 ms',
        '(b) nginx req/s',
        'p50 ms',
        'p99 ms',
        'lectern ÷ (a)',
        'nginx ÷ (a)',
      ],
      reads.summary.map((row) => {
        const l = row.servers.lectern;
        const a = row.servers.node;
        const b = row.servers.nginx;
        return [
          `\`${row.path}\``,
          int(row.bodyBytes),
          int(l.rps),
          ms(l.p50),
          ms(l.p99),
          int(a.rps),
          ms(a.p50),
          ms(a.p99),
          int(b.rps),
          ms(b.p50),
          ms(b.p99),
          `**${ratio(l.rpsRatio)}**`,
          ratio(b.rpsRatio),
        ];
      }),
    ),
    '',
    p99Line(reads),
    '',
    'Server CPU time per request (user + system of the server process, from `/proc`, µs), which other work on the machine disturbs less than requests/s, and the response header bytes each server sends:',
    '',
    table(
      ['URL', 'lectern µs', '(a) µs', '(b) µs', 'lectern ÷ (a)', 'header bytes lectern', '(a)', '(b)'],
      reads.summary.map((row) => [
        `\`${row.path}\``,
        ms(row.servers.lectern.serverCpuUsPerRequest, 0),
        ms(row.servers.node.serverCpuUsPerRequest, 0),
        ms(row.servers.nginx.serverCpuUsPerRequest, 0),
        ratio(row.servers.lectern.cpuRatio),
        int(row.headerBytes?.lectern),
        int(row.headerBytes?.node),
        int(row.headerBytes?.nginx),
      ]),
    ),
  ];
  if (reads.summary[0]?.servers.before) {
    const label = reads.summary[0].servers.before.label;
    lines.push(
      '',
      `**Before and after.** ${label.replace('lectern at ', 'The project at ')} (\`--before=${s.before?.slice(0, 7) ?? '?'}\`), built from the same content/, served in the same rounds:`,
      '',
      table(
        ['URL', 'before req/s', 'p50 ms', 'p99 ms', 'µs CPU', 'now req/s', 'p50 ms', 'p99 ms', 'µs CPU', 'now ÷ before req/s'],
        reads.summary.map((row) => {
          const was = row.servers.before;
          const now = row.servers.lectern;
          return [
            `\`${row.path}\``,
            int(was.rps),
            ms(was.p50),
            ms(was.p99),
            ms(was.serverCpuUsPerRequest, 0),
            int(now.rps),
            ms(now.p50),
            ms(now.p99),
            ms(now.serverCpuUsPerRequest, 0),
            `**${ratio(now.rps / was.rps)}**`,
          ];
        }),
      ),
    );
  }
  if (reads.summary[0]?.servers['node-next']) {
    lines.push(
      '',
      "**What bounds lectern's reads, one cause at a time.** Two more node:http servers with the same bytes ran in the same rounds: one sending lectern's full header set, one with Next loaded and prepared in the process (one page rendered through it, as lectern's warm-up does). CPU µs per request:",
      '',
      table(
        ['URL', '(a) bare', '(a) + lectern headers', '(a) + Next in process', 'lectern', 'req/s: headers ÷ (a)', 'Next ÷ (a)', 'lectern ÷ (a)'],
        reads.summary.map((row) => {
          const v = row.servers;
          return [
            `\`${row.path}\``,
            ms(v.node.serverCpuUsPerRequest, 0),
            ms(v['node-headers']?.serverCpuUsPerRequest, 0),
            ms(v['node-next']?.serverCpuUsPerRequest, 0),
            ms(v.lectern.serverCpuUsPerRequest, 0),
            ratio(v['node-headers']?.rpsRatio),
            ratio(v['node-next']?.rpsRatio),
            ratio(v.lectern.rpsRatio),
          ];
        }),
      ),
    );
  }
  const profile = results.profile;
  if (profile?.profiles?.length) {
    lines.push(
      '',
      `**CPU profile of a cached read** (\`npm run bench -- profile\`, V8 sampling profiler, only the ${profile.durationSeconds} s of load; self time):`,
      '',
    );
    const where = (entry) => entry.name.split(' ')[1]?.replace(/:1$/, '') ?? '';
    for (const p of profile.profiles.filter((entry) => entry.server === 'lectern')) {
      const own = p.functions.filter((entry) => /^\.\/(lib|server)/.test(where(entry)) && !/^__name /.test(entry.name)).slice(0, 6);
      const inclusive = (p.lecternInclusive ?? []).filter((entry) => !/^(__name|handle|send|\(anonymous\)) /.test(entry.name)).slice(0, 6);
      lines.push(
        `- \`${p.path}\`. Self time by area: ${p.areas
          .filter((entry) => entry.share >= 0.01)
          .map((entry) => `${entry.name} ${(entry.share * 100).toFixed(0)} %`)
          .join(', ')}.`,
        `  Heaviest functions of lectern's code by self time: ${own.map((entry) => `\`${entry.name.split(' ')[0]}\` (${where(entry)}) ${(entry.share * 100).toFixed(1)} %`).join(', ') || '–'}.`,
        `  With what they call (Node's setHeader and its checks included): ${inclusive.map((entry) => `\`${entry.name.split(' ')[0]}\` ${(entry.share * 100).toFixed(1)} %`).join(', ') || '–'}.` +
          (p.inclusive?.naming > 0.005
            ? ` Naming functions created per request (esbuild's \`__name\` helper, which tsx adds to server.ts and lib/ as it compiles them): ${ms(p.inclusive.naming * 100, 1)} %.`
            : ''),
      );
    }
  }
  if (reads.ceiling?.length) {
    lines.push(
      '',
      'Load generator ceiling: both tools against (a) in the same run. Where autocannon stays far below wrk, autocannon (JavaScript, one core) is what is measured, not the server, so these numbers use wrk:',
      '',
      table(
        ['URL', 'autocannon req/s', 'wrk req/s'],
        reads.summary.map((row) => {
          const find = (tool) => reads.ceiling.find((entry) => entry.target === row.target && entry.tool === tool);
          return [`\`${row.path}\``, int(find('autocannon')?.rps), int(find('wrk')?.rps)];
        }),
      ),
    );
  }
  return lines.join('\n');
}

function buildSummary(sizes) {
  const ok = sizes.filter((size) => size.next.ok);
  const largest = sizes[sizes.length - 1];
  const perPost = [];
  for (let i = 1; i < ok.length; i += 1) {
    perPost.push({
      from: ok[i - 1].posts,
      to: ok[i].posts,
      seconds: (ok[i].next.wallSeconds - ok[i - 1].next.wallSeconds) / (ok[i].posts - ok[i - 1].posts),
      cpu: (ok[i].next.cpuSeconds - ok[i - 1].next.cpuSeconds) / (ok[i].posts - ok[i - 1].posts),
    });
  }
  return { ok, largest, perPost };
}

/** For a build stopped before the end: the pace of its static generation, and what it implies. */
function estimateUnfinished(size) {
  const progress = size.next.progress ?? [];
  if (progress.length < 2 || !size.next.pages) return undefined;
  const last = progress[progress.length - 1];
  const from = progress.find((entry) => entry.done > 0 && last.t - entry.t > 0) ?? progress[0];
  const rate = (last.done - from.done) / (last.t - from.t);
  if (!(rate > 0)) return undefined;
  return { done: last.done, window: last.t - from.t, msPerPage: 1000 / rate, totalSeconds: last.t + (size.next.pages - last.done) / rate };
}

function buildBlock() {
  const build = results.build;
  if (!build) return undefined;
  const { perPost } = buildSummary(build.sizes);
  const lines = [
    `Generated posts (\`bench/generate-posts.mjs\`, about ${int(build.sizes[0]?.averagePostBytes)} bytes each, seeded so every run writes the same files) built cold with \`next build\` (fresh \`NEXT_DIST_DIR\`, timeout ${build.settings.timeoutMinutes} min) and with Hugo over the same markdown files (a minimal site: post, list, tag and home templates, Hugo's own RSS and sitemap; median of ${build.settings.hugoRuns} runs). ` +
      "Wall time is what a deploy waits; CPU time (user + system of every process of the build) is what other work on the machine disturbs less. Peak memory is the largest sum of the resident memory of every process of the build, sampled every 250 ms. CPU pressure is the share of the build's wall time in which some task on the machine (the build's own included) waited for a CPU (Linux PSI).",
    '',
    table(
      [
        'posts',
        'next wall s',
        'next CPU s',
        'next peak memory',
        'largest process',
        'Hugo wall s',
        'Hugo CPU s',
        'Hugo peak',
        'wall ÷ Hugo',
        'CPU ÷ Hugo',
        'CPU pressure',
      ],
      build.sizes.map((size) => [
        int(size.posts),
        `${seconds(size.next.wallSeconds)}${size.next.ok ? '' : size.next.timedOut ? ' (timed out)' : ' (failed)'}`,
        seconds(size.next.cpuSeconds),
        mib(size.next.peakTreeRssBytes),
        mib(size.next.peakProcessRssBytes),
        ms(size.hugo.wallSeconds, 2),
        ms(size.hugo.cpuSeconds, 2),
        mib(size.hugo.peakRssBytes),
        size.next.ok ? ratio(size.next.wallSeconds / size.hugo.wallSeconds) : `> ${ratio(size.next.wallSeconds / size.hugo.wallSeconds)}`,
        size.next.ok ? ratio(size.next.cpuSeconds / size.hugo.cpuSeconds) : '–',
        size.next.cpuPressure === undefined ? '–' : `${ms(size.next.cpuPressure, 0)} %`,
      ]),
    ),
    '',
    `Rebuild after editing one post (the post in the middle of the list gets a paragraph), with the \`.next/cache\` the cold build left, as a CI that keeps it runs; PRERENDER_POSTS ${build.settings.prerenderPosts ?? 'default'}:`,
    '',
    table(
      ['posts', 'cold wall s', 'warm wall s', 'warm ÷ cold', 'warm CPU s', 'warm peak memory', 'warm static pages s'],
      build.sizes
        .filter((size) => size.warm)
        .map((size) => [
          int(size.posts),
          seconds(size.next.wallSeconds),
          `${seconds(size.warm.wallSeconds)}${size.warm.ok ? '' : ' (failed)'}`,
          ratio(size.warm.wallSeconds / size.next.wallSeconds),
          seconds(size.warm.cpuSeconds),
          mib(size.warm.peakTreeRssBytes),
          seconds(size.warm.generateSeconds),
        ]),
    ),
    '',
    "Where `next build`'s time goes (seconds of wall time between the lines Next prints):",
    '',
    table(
      ['posts', 'pages', 'workers', 'compile', 'TypeScript', 'collect page data', 'static pages', 'ms per page', 'finalize'],
      build.sizes.map((size) => {
        const n = size.next;
        const done = n.progress?.length ? n.progress[n.progress.length - 1].done : undefined;
        const perPage = n.generateSeconds && n.pages ? (n.generateSeconds * 1000) / n.pages : undefined;
        const partial = !n.ok && n.progress?.length > 1 ? ` (${int(done)} of ${int(n.pages)} done)` : '';
        return [
          int(size.posts),
          int(n.pages),
          int(n.workers),
          seconds(n.compileSeconds),
          seconds(n.typescriptSeconds),
          seconds(n.collectSeconds),
          `${seconds(n.generateSeconds)}${partial}`,
          ms(perPage, 0),
          seconds(n.finalizeSeconds),
        ];
      }),
    ),
  ];
  if (perPost.length) {
    lines.push(
      '',
      `Marginal cost per added post: ${perPost.map((step) => `${int(step.from)} → ${int(step.to)} posts: ${ms(step.seconds * 1000, 0)} ms wall, ${ms(step.cpu * 1000, 0)} ms CPU`).join('; ')}.`,
    );
  }
  for (const size of build.sizes.filter((entry) => entry.longTail)) {
    const tail = size.longTail;
    lines.push(
      '',
      `The long tail at ${int(size.posts)} posts: the build generated the newest ${int(tail.prerendered)}; lectern's server on that build (no background generation) answered the first request of ${int(tail.generated.count)} older posts' pages, spread over the ${int(tail.older)}, one at a time, in ${ms(tail.generated.p50Ms, 0)} ms at the median and ${ms(tail.generated.p99Ms, 0)} ms at p99 (max ${ms(tail.generated.maxMs, 0)} ms); the first request of ${int(tail.built.count)} pages the build generated took ${ms(tail.built.p50Ms, 1)} ms and ${ms(tail.built.p99Ms, 1)} ms.`,
    );
  }
  for (const size of build.sizes.filter((entry) => !entry.next.ok)) {
    const estimate = estimateUnfinished(size);
    if (estimate) {
      lines.push(
        '',
        `The ${int(size.posts)}-post build ${size.next.timedOut ? 'was stopped at the time limit' : 'failed'} after ${seconds(size.next.wallSeconds)} s with ${int(estimate.done)} of ${int(size.next.pages)} pages generated; at the pace of its last ${int(estimate.window)} s (${ms(estimate.msPerPage, 0)} ms per page) it needed about ${seconds(estimate.totalSeconds)} s in all (${ratio(estimate.totalSeconds / size.hugo.wallSeconds)}× Hugo).`,
      );
    }
  }
  const pipeline = results.render;
  if (pipeline?.variants?.length) {
    lines.push(
      '',
      `Markdown pipeline alone (\`npm run bench -- build\` runs \`bench/render.mjs\`: \`renderMarkdown\` of lib/content/render.ts over ${int(pipeline.posts)} generated posts in one Node process, packages external as in Next's server build):`,
      '',
      table(
        ['variant', 'first call ms', 'first call CPU ms', 'then p50 ms per post', 'CPU ms per post', 'heap kept per post'],
        pipeline.variants.map((variant) => [
          variant.name,
          int(variant.firstCallMs),
          int(variant.firstCallCpuMs),
          ms(variant.p50Ms, 1),
          ms(variant.cpuMsPerPost, 1),
          kib(variant.retainedBytesPerPost),
        ]),
      ),
    );
  }
  const profile = results['build-profile'];
  if (profile?.processes?.length) {
    lines.push(
      '',
      `CPU profile of a ${int(profile.posts)}-post build (\`npm run bench -- build-profile\`: V8's sampling profiler in every Node process of the build, through \`bench/lib/cpu-prof-preload.mjs\`; each sample counted once, under the first thing on its stack, from the top, that says what it was doing):`,
      '',
    );
    for (const proc of profile.processes.filter((entry) => entry.busySeconds >= 1)) {
      lines.push(
        `- \`${proc.file}\` (${seconds(proc.busySeconds)} s busy): ${proc.categories
          .filter((entry) => entry.share >= 0.02)
          .map((entry) => `${entry.name} ${(entry.share * 100).toFixed(0)} %`)
          .join(', ')}.`,
      );
    }
  }
  return lines.join('\n');
}

function limitsBlock() {
  const limits = results.limits;
  if (!limits) return undefined;
  const s = limits.settings;
  return [
    `\`lib/limits\` called directly (route \`${s.route}\`): each decision awaited alone, a new client each time (an allowed request), then one client far over its limit (every decision a refusal, which also reads both window counters), then ${s.concurrency} decisions in flight for decisions per second. ` +
      `${int(s.memoryDecisions)} decisions in memory, ${int(s.redisDecisions)} on a Redis server started for the run on a loopback port${s.pinned ? ' (Redis on CPU 0, the benchmark on CPU 1)' : ''}. One Redis \`PING\` round trip from node-redis: p50 ${ms(limits.redisPing?.p50, 3)} ms, p99 ${ms(limits.redisPing?.p99, 3)} ms.`,
    '',
    table(
      ['backend', 'allowed p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'refused p99 ms', 'decisions/s', 'p99 ms at 50 in flight', 'goal p99'],
      limits.results.map((row) => {
        const goal = row.name.startsWith('memory') ? GOALS.memoryP99Ms : GOALS.redisP99Ms;
        return [
          row.name,
          ms(row.allowed.p50, 3),
          ms(row.allowed.p99, 3),
          ms(row.allowed.p999, 3),
          ms(row.allowed.max, 1),
          ms(row.refused.p99, 3),
          int(row.underLoad.perSecond),
          ms(row.underLoad.p99, 2),
          `< ${goal} ms: ${yes(Math.max(row.allowed.p99, row.refused.p99) < goal)}`,
        ];
      }),
      1,
    ),
  ].join('\n');
}

function weightBlock() {
  const weight = results.weight;
  if (!weight) return undefined;
  const kinds = ['html', 'js', 'css', 'font', 'image', 'other'];
  const rows = [];
  for (const page of weight.pages) {
    for (const kind of kinds) {
      const total = page.totals[kind];
      if (!total) continue;
      rows.push([`${page.label} (\`${page.path}\`)`, kind, int(total.files), kib(total.transferredBytes), kib(total.uncompressedBytes), kib(total.gzipBytes)]);
    }
    rows.push([
      `**${page.label} total**`,
      '',
      int(page.all.files),
      `**${kib(page.all.transferredBytes)}**`,
      kib(page.all.uncompressedBytes),
      kib(page.all.gzipBytes),
    ]);
  }
  const fonts = weight.pages.some((page) => page.totals.font);
  const skipped = weight.pages[0]?.skipped ?? [];
  const skippedNote = skipped.length
    ? ` Not counted: ${skipped.map((entry) => `\`${entry.path}\` (${entry.why}, ${kib(entry.transferredBytes)})`).join(', ')}.`
    : '';
  return [
    `Each page and everything it refers to (scripts, stylesheets, preloads, images, and what the CSS refers to), fetched from lectern's server with \`Accept-Encoding: ${weight.acceptEncoding}\` ("transferred": body bytes on the wire) and without ("uncompressed"); "gzip" is what gzip -6 makes of each file. Response headers add ${weight.pages.map((page) => `${kib(page.headerBytes)} (${page.label})`).join(' and ')}.${fonts ? '' : ' No web fonts: the stylesheet uses system fonts.'}${skippedNote}`,
    '',
    table(['page', 'kind', 'files', 'transferred', 'uncompressed', 'gzip'], rows, 2),
  ].join('\n');
}

/** Which part measures a row of the goals table, from the row's text (to keep rows of parts not run here). */
const GOAL_PARTS = [
  ['reads', /^\| (every read|p99 under)/],
  ['build-memory', /^\| build under 2 GiB peak memory, /],
  ['build-workers', /^\| [\d,]+-post build with BUILD_WORKERS/],
  ['build', /^\| ([\d,]+-post (cold )?(re)?build|linear in posts|build under|first request of an older post)/],
  ['limits', /^\| limit decision/],
  ['flood', /^\| (server memory after a flood|[\d,]+ made-up URLs)/],
  ['search', /^\| search /],
  ['newsletter', /^\| newsletter to /],
  ['fediverse', /^\| a post delivered to /],
  ['publish', /^\| (scheduled post on every output|no read over)/],
  ['downloads', /^\| (\d+ concurrent downloads|a download link's check)/],
];

function goalsBlock(existing) {
  const kept = (existing ?? '').split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| goal') && !line.startsWith('| ---'));
  const rowsOf = (part) => (results[part] ? [] : kept.filter((line) => GOAL_PARTS.find(([, pattern]) => pattern.test(line))?.[0] === part));
  const out = {
    reads: rowsOf('reads'),
    build: rowsOf('build'),
    'build-workers': rowsOf('build-workers'),
    'build-memory': rowsOf('build-memory'),
    limits: rowsOf('limits'),
    flood: rowsOf('flood'),
    search: rowsOf('search'),
    newsletter: rowsOf('newsletter'),
    fediverse: rowsOf('fediverse'),
    publish: rowsOf('publish'),
    downloads: rowsOf('downloads'),
  };
  const reads = results.reads;
  if (reads) {
    const worst = reads.summary.reduce((low, row) => (row.servers.lectern.rpsRatio < low.servers.lectern.rpsRatio ? row : low));
    const best = reads.summary.reduce((high, row) => (row.servers.lectern.rpsRatio > high.servers.lectern.rpsRatio ? row : high));
    const p99Worst = reads.summary.reduce((high, row) => (row.servers.lectern.p99 > high.servers.lectern.p99 ? row : high));
    const bareP99Over = reads.summary.filter((row) => row.servers.node.p99 >= GOALS.readP99Ms).map((row) => `\`${row.path}\``);
    out.reads.push([
      'every read ≥ 90 % of the requests/s of bare node:http',
      `lectern ÷ (a) from ${ratio(worst.servers.lectern.rpsRatio)} (\`${worst.path}\`) to ${ratio(best.servers.lectern.rpsRatio)} (\`${best.path}\`)`,
      yes(reads.summary.every((row) => row.servers.lectern.rpsRatio >= GOALS.readRatio)),
    ]);
    out.reads.push([
      'p99 under 5 ms at 50 connections',
      `lectern's worst p99 ${ms(p99Worst.servers.lectern.p99)} ms (\`${p99Worst.path}\`); ${bareP99Over.length ? `(a) itself is over 5 ms on ${bareP99Over.join(', ')}` : '(a) is under 5 ms on every URL'}`,
      yes(reads.summary.every((row) => row.servers.lectern.p99 < GOALS.readP99Ms)),
    ]);
  }
  const build = results.build;
  if (build) {
    const { ok, largest, perPost } = buildSummary(build.sizes);
    const hugoRatio = largest.next.wallSeconds / largest.hugo.wallSeconds;
    out.build.push([
      `${int(largest.posts)}-post build within 10× Hugo's time`,
      largest.next.ok
        ? `${seconds(largest.next.wallSeconds)} s vs ${ms(largest.hugo.wallSeconds)} s: ${ratio(hugoRatio)}×`
        : `did not finish in ${build.settings.timeoutMinutes} min (> ${ratio(hugoRatio)}× Hugo's ${ms(largest.hugo.wallSeconds)} s)`,
      yes(largest.next.ok && hugoRatio <= GOALS.buildHugoRatio),
    ]);
    if (perPost.length >= 2) {
      // Judged on CPU time, which other work on the machine disturbs less than wall time.
      const [before, after] = perPost.slice(-2);
      const growth = after.cpu / before.cpu;
      out.build.push([
        'linear in posts',
        `marginal CPU time per post ${ms(before.cpu * 1000, 0)} ms then ${ms(after.cpu * 1000, 0)} ms (${ratio(growth)}×); wall ${ms(before.seconds * 1000, 0)} ms then ${ms(after.seconds * 1000, 0)} ms`,
        yes(growth <= 1.25),
      ]);
    } else if (perPost.length === 1) {
      out.build.push([
        'linear in posts',
        `one step measured (${int(perPost[0].from)} → ${int(perPost[0].to)}): ${ms(perPost[0].seconds * 1000, 0)} ms per added post; ${largest.next.ok ? 'only two sizes were built, so no second step to compare' : 'the largest build did not finish'}`,
        '–',
      ]);
    }
    const thousand = build.sizes.find((size) => size.posts === 1000);
    if (thousand) {
      out.build.push([
        '1,000-post cold build under 30 s',
        `${seconds(thousand.next.wallSeconds)} s (${seconds(thousand.next.cpuSeconds)} s CPU)`,
        yes(thousand.next.ok && thousand.next.wallSeconds < GOALS.coldBuild1000Seconds),
      ]);
    }
    for (const size of build.sizes.filter((entry) => entry.warm && entry.posts >= 1000)) {
      const share = size.warm.wallSeconds / size.next.wallSeconds;
      out.build.push([
        `${int(size.posts)}-post rebuild after one edit, warm cache, under a third of the cold build`,
        `${seconds(size.warm.wallSeconds)} s vs ${seconds(size.next.wallSeconds)} s cold: ${ratio(share)}×`,
        yes(size.warm.ok && share < GOALS.warmBuildShare),
      ]);
    }
    for (const size of build.sizes.filter((entry) => entry.longTail)) {
      out.build.push([
        `first request of an older post (past PRERENDER_POSTS) at ${int(size.posts)} posts`,
        `p99 ${ms(size.longTail.generated.p99Ms, 0)} ms (p50 ${ms(size.longTail.generated.p50Ms, 0)} ms); a background prewarm fills them after start`,
        '–',
      ]);
    }
    const peak = Math.max(...build.sizes.map((size) => size.next.peakTreeRssBytes));
    out.build.push([
      'build under 2 GiB peak memory',
      `${mib(peak)} at most (${ok.length === build.sizes.length ? 'every size' : 'sizes that ran'})`,
      yes(peak < GOALS.buildPeakBytes && largest.next.ok),
    ]);
  }
  const fewer = results['build-workers'];
  if (fewer) {
    const { largest } = buildSummary(fewer.sizes);
    const label = `${int(largest.posts)}-post build with BUILD_WORKERS=${fewer.settings.workers}`;
    const hugoRatio = largest.next.wallSeconds / largest.hugo.wallSeconds;
    out['build-workers'].push([
      `${label}: within 10× Hugo's time`,
      `${seconds(largest.next.wallSeconds)} s vs ${ms(largest.hugo.wallSeconds)} s: ${ratio(hugoRatio)}×`,
      yes(largest.next.ok && hugoRatio <= GOALS.buildHugoRatio),
    ]);
    out['build-workers'].push([
      `${label}: under 2 GiB peak memory`,
      `${mib(largest.next.peakTreeRssBytes)} (cold; warm rebuild ${seconds(largest.warm?.wallSeconds ?? Number.NaN)} s)`,
      yes(largest.next.ok && largest.next.peakTreeRssBytes < GOALS.buildPeakBytes),
    ]);
  }
  const memory = results['build-memory'];
  for (const run of memory?.runs.filter((entry) => entry.limitMiB) ?? []) {
    out['build-memory'].push([
      `build under 2 GiB peak memory, ${int(memory.posts)} posts in a ${int(run.limitMiB)} MiB container`,
      run.ok ? `${mib(run.peakTreeRssBytes)} (${seconds(run.wallSeconds)} s)` : `failed after ${seconds(run.wallSeconds)} s`,
      yes(run.ok && run.peakTreeRssBytes < GOALS.buildPeakBytes),
    ]);
  }
  const limits = results.limits;
  if (limits) {
    const inMemory = limits.results.find((row) => row.name === 'memory');
    const full = limits.results.find((row) => row.name === 'memory, key cap reached');
    const redis = limits.results.find((row) => row.name === 'redis');
    if (inMemory) {
      const worst = Math.max(inMemory.allowed.p99, inMemory.refused.p99, full?.allowed.p99 ?? 0, full?.refused.p99 ?? 0);
      out.limits.push([
        'limit decision < 1 ms p99 in memory',
        `p99 ${ms(inMemory.allowed.p99, 3)} ms allowed, ${ms(inMemory.refused.p99, 3)} ms refused${full ? `; ${ms(full.allowed.p99, 3)} ms with the key cap reached` : ''}`,
        yes(worst < GOALS.memoryP99Ms),
      ]);
    }
    if (redis)
      out.limits.push([
        'limit decision < 2 ms p99 on local Redis',
        `p99 ${ms(redis.allowed.p99, 3)} ms allowed, ${ms(redis.refused.p99, 3)} ms refused`,
        yes(Math.max(redis.allowed.p99, redis.refused.p99) < GOALS.redisP99Ms),
      ]);
  }
  const newsletter = results.newsletter;
  if (newsletter) {
    const g = newsletter.goals;
    const p99Ratio = newsletter.reads.duringP99Ms / newsletter.reads.idleP99Ms;
    out.newsletter.push([
      `newsletter to ${int(newsletter.subscribers)} subscribers: under ${g.seconds} s, memory < ${mib(g.growthBytes)}, store < ${kib(g.bytesPerRecipient)} per recipient, read p99 within ${g.p99Ratio}× idle`,
      `${seconds(newsletter.send.seconds)} s, ${signedMib(newsletter.growthBytes)}, ${kib(newsletter.storeBytesPerRecipient)}, p99 ${ms(newsletter.reads.duringP99Ms)} ms vs ${ms(newsletter.reads.idleP99Ms)} ms idle (${ratio(p99Ratio)}×)`,
      yes(
        newsletter.send.seconds < g.seconds &&
          newsletter.growthBytes < g.growthBytes &&
          newsletter.storeBytesPerRecipient < g.bytesPerRecipient &&
          p99Ratio <= g.p99Ratio,
      ),
    ]);
  }
  const fediverse = results.fediverse;
  if (fediverse) {
    const g = fediverse.goals;
    const d = fediverse.delivery;
    const p99Ratio = fediverse.reads.duringP99Ms / fediverse.reads.idleP99Ms;
    out.fediverse.push([
      `a post delivered to ${int(fediverse.followers)} followers over ${int(fediverse.inboxes)} inboxes: under ${g.seconds} s, memory < ${mib(g.growthBytes)}, read p99 within ${g.p99Ratio}× idle`,
      `${d.complete ? '' : 'not complete: '}${seconds(d.seconds)} s, ${int(d.inboxesReached)} of ${int(fediverse.inboxes)} inboxes, ${int(d.duplicates)} duplicates, ${signedMib(fediverse.growthBytes)}, p99 ${ms(fediverse.reads.duringP99Ms)} ms vs ${ms(fediverse.reads.idleP99Ms)} ms idle (${ratio(p99Ratio)}×)`,
      yes(d.complete && d.seconds < g.seconds && d.duplicates === 0 && fediverse.growthBytes < g.growthBytes && p99Ratio <= g.p99Ratio),
    ]);
  }
  const publish = results.publish;
  if (publish) {
    for (const size of publish.sizes.filter((entry) => entry.error === undefined)) {
      out.publish.push([
        `scheduled post on every output within ${GOALS.publishSeconds} s on lectern's server, ${int(size.size)} posts`,
        `p50 ${int(size.delayP50Ms)} ms, max ${int(size.delayMaxMs)} ms over ${int(size.runs.length)} posts; ${int(size.cpuSecondsMedian * 1000)} ms CPU per publish (median)`,
        yes(size.delayMaxMs <= GOALS.publishSeconds * 1000),
      ]);
      if (size.readMaxAtTheMinuteMs !== undefined)
        out.publish.push([
          `no read over ${int(GOALS.readAtTheMinuteMs)} ms at the minute a post goes live, ${int(size.size)} posts`,
          `slowest ${int(size.readMaxAtTheMinuteMs)} ms (p99 ${ms(size.readP99AtTheMinuteMs)} ms; ${int(publish.settings.readers)} clients looping every output, p99 ${ms(size.readP99BeforeMs)} ms before the time)`,
          yes(size.readMaxAtTheMinuteMs <= GOALS.readAtTheMinuteMs),
        ]);
    }
  }
  const flood = results.flood;
  if (flood) {
    out.flood.push([
      `server memory after a flood of ${int(flood.spellings.requests + flood.queries.requests)} distinct URLs grows < 64 MiB`,
      `${signedMib(flood.growthBytes)} (${mib(flood.rssBeforeBytes)} → ${mib(flood.rssAfterBytes)}); a page still answered from memory: ${flood.after.fromMemory ? 'yes' : 'no'}`,
      yes(flood.growthBytes < GOALS.floodGrowthBytes && flood.after.fromMemory),
    ]);
    const madeUp = flood.madeUp;
    if (madeUp?.heldHeap) {
      const runs = [madeUp, madeUp.heldHeap];
      const written = runs.reduce((sum, run) => sum + run.diskAfter.files - run.diskBefore.files, 0);
      const changed = runs.some((run) => run.diskAfter.bytes !== run.diskBefore.bytes);
      const growth = madeUp.heldHeap.rssAfterBytes - madeUp.heldHeap.rssBeforeBytes;
      const growthDefault = madeUp.rssAfterBytes - madeUp.rssBeforeBytes;
      out.flood.push([
        `${int(madeUp.requests)} made-up URLs under every dynamic segment write nothing to disk, and leave the server within 32 MiB of where it started, with V8's default heap and with the heap held to ${int(madeUp.heldHeap.heapMiB)} MiB`,
        `${int(written)} files written${changed ? ' (bytes changed)' : ''}; memory ${signedMib(growthDefault)} with the default heap, ${signedMib(growth)} held`,
        yes(written === 0 && !changed && growth < GOALS.madeUpGrowthBytes && growthDefault < GOALS.madeUpGrowthBytes),
      ]);
    }
  }
  const search = results.search;
  // Without engine results (--parts=http alone), the engine rows stay as last measured.
  if (search && !search.runs?.length) out.search = kept.filter((line) => /^\| search (p99|index|worst)/.test(line));
  if (search) {
    const lectern = search.runs.filter((run) => run.engine === 'lectern');
    const worstOf = (run) => run.worst.reduce((high, row) => (row.cpu.p99 > high.cpu.p99 ? row : high));
    for (const size of Object.keys(GOALS.searchP99Ms).map(Number)) {
      const runs = lectern.filter((run) => run.posts === size);
      if (!runs.length) continue;
      out.search.push([
        `search p99 under ${GOALS.searchP99Ms[size]} ms at ${int(size)} posts (query + passages, limit 10)`,
        runs.map((run) => `${run.corpus} ${ms(run.search.cpu.p99)} ms CPU (wall ${ms(run.search.p99)} ms)`).join('; '),
        yes(runs.every((run) => run.search.cpu.p99 < GOALS.searchP99Ms[size])),
      ]);
    }
    const tenK = lectern.filter((run) => run.posts === 10_000);
    if (tenK.length) {
      out.search.push(
        [
          'search index under 100 MiB and built under 5 s at 10,000 posts',
          tenK
            .map(
              (run) =>
                `${run.corpus} ${signedMib(run.build.indexBytes)}, ${seconds((run.build.cpuMs ?? run.build.ms) / 1000)} s CPU (wall ${seconds(run.build.ms / 1000)} s)`,
            )
            .join('; '),
          yes(tenK.every((run) => run.build.indexBytes < GOALS.searchIndexBytes && (run.build.cpuMs ?? run.build.ms) < GOALS.searchBuildMs)),
        ],
        [
          'search worst query under 20 ms at 10,000 posts',
          tenK.map((run) => `${run.corpus}: ${worstOf(run).kind}, p99 ${ms(worstOf(run).cpu.p99)} ms CPU (wall ${ms(worstOf(run).p99)} ms)`).join('; '),
          yes(tenK.every((run) => worstOf(run).cpu.p99 < GOALS.searchWorstMs)),
        ],
      );
    }
    if (search.http)
      out.search.push([
        'search load: a cached read under 4 looping worst-case searchers within 2× of its idle p99',
        `\`/llms.txt\` p99 ${ms(search.http.idle.p99)} ms idle, ${ms(search.http.loaded.p99)} ms under search: ${ratio(search.http.ratio)}×`,
        yes(search.http.ratio <= GOALS.searchReadRatio),
      ]);
  }
  const downloads = results.downloads;
  if (downloads) {
    const size = mib(downloads.settings.sizeBytes);
    out.downloads.push([
      `${downloads.settings.concurrency} concurrent downloads of a ${size} file from lectern's server: memory grows < 30 MiB, throughput ≥ 80 % of nginx from disk`,
      `${signedMib(downloads.growthBytes)} at the peak; ${int(downloads.lecternMibPerSecond)} MiB/s vs nginx ${int(downloads.nginxMibPerSecond)} MiB/s: ${pct(downloads.throughputRatio, 0)}`,
      yes(downloads.growthBytes < downloads.goals.growthBytes && downloads.throughputRatio >= downloads.goals.throughputRatio),
    ]);
    out.downloads.push([
      "a download link's check (signature and store read) under 1 ms p99",
      `p99 ${ms(downloads.checks.check.p99Ms, 3)} ms (p50 ${ms(downloads.checks.check.p50Ms, 3)} ms) on SQLite; counted (with its write) p99 ${ms(downloads.checks.counted.p99Ms, 3)} ms`,
      yes(downloads.checks.check.p99Ms < downloads.goals.checkP99Ms),
    ]);
  }
  const all = [
    ...out.reads,
    ...out.build,
    ...out['build-workers'],
    ...out['build-memory'],
    ...out.limits,
    ...out.flood,
    ...out.search,
    ...out.newsletter,
    ...out.fediverse,
    ...out.publish,
    ...out.downloads,
  ].map((row) => (typeof row === 'string' ? row : `| ${row.join(' | ')} |`));
  if (!all.length) return undefined;
  return [table(['goal', 'measured', ''], [], 3), ...all].join('\n');
}

function memoryBlock() {
  const memory = results['build-memory'];
  if (!memory) return undefined;
  const rows = [];
  for (const run of memory.runs) {
    const where = run.limitMiB ? `${int(run.limitMiB)} MiB cgroup` : 'the whole machine';
    for (const proc of run.processes.filter((entry) => entry.peak.rss >= 200 * 2 ** 20)) {
      const rest = proc.peak.rss - proc.peak.heapTotal - proc.peak.external;
      const live = proc.liveAfterFullGc;
      rows.push([
        where,
        proc.role === 'worker' ? 'static worker' : proc.role === 'next' ? 'main (`next build`)' : proc.role,
        mib(proc.heapLimit),
        mib(proc.peak.rss),
        mib(proc.peak.heapTotal),
        mib(proc.peak.heapUsed),
        mib(proc.peak.external),
        mib(rest),
        live ? `${mib(live.first)} → ${mib(live.last)} (max ${mib(live.max)}, ${int(proc.fullGcs)} full GCs)` : '–',
      ]);
    }
  }
  const summary = memory.runs.map(
    (run) =>
      `${run.limitMiB ? `in a ${int(run.limitMiB)} MiB memory cgroup` : 'on the whole machine'}: ${run.ok ? `built in ${seconds(run.wallSeconds)} s (${seconds(run.cpuSeconds)} s CPU)` : `failed after ${seconds(run.wallSeconds)} s`}, peak ${mib(run.peakTreeRssBytes)} for all processes together, largest process ${mib(run.peakProcessRssBytes)}`,
  );
  return [
    `\`npm run bench -- build-memory\`: ${int(memory.posts)} generated posts built with \`bench/lib/mem-preload.mjs\` in every Node process of the build, which samples the process's memory every 500 ms and the V8 heap still in use after each full garbage collection. ` +
      "Built once on the whole machine and once inside a memory cgroup of each size given, as a container or CI runner of that size would run it: Node sizes V8's heap limit from the memory it is given. " +
      `Results: ${summary.join('; ')}.`,
    '',
    'Each process of 200 MiB or more, at the moment of its peak resident memory. "V8 heap" is what V8 had committed, "in use" what the heap held then (live objects and garbage not yet collected), "rest" is resident memory outside the V8 heap and Node\'s external buffers (code, the Node binary, malloc arenas). "Live after full GCs" is the heap in use right after a full collection, at the first and the last of them: what the process actually keeps.',
    '',
    table(['run', 'process', 'heap limit', 'peak RSS', 'V8 heap', 'in use', 'external', 'rest', 'live after full GCs, first → last'], rows, 2),
  ].join('\n');
}

/** The made-up-segment flood: what it sent, and what the build folder and the servers kept. */
function madeUpParagraph(madeUp, settings) {
  const segments = settings.segments ?? [];
  const { heldHeap: held } = madeUp;
  const disk = (run) => `${int(run.diskBefore.files)} files (${mib(run.diskBefore.bytes)}) → ${int(run.diskAfter.files)} (${mib(run.diskAfter.bytes)})`;
  const memory = (run) =>
    `${mib(run.firstRound.rssBeforeBytes)} → ${mib(run.rssBeforeBytes)} over the first round, ${mib(run.rssBeforeBytes)} → ${mib(run.rssAfterBytes)} (**${signedMib(run.rssAfterBytes - run.rssBeforeBytes)}**) over the second`;
  return (
    `Then made-up values, one URL each, spread over ${int(segments.length)} dynamic segments (${segments.map((segment) => `\`${segment}\``).join(', ')}; \`X\` a made-up slug, tag or app, a quarter of them 240 to 600 characters long, \`N\` a page number past the last or not a number), in two rounds of ${int(madeUp.requests)} distinct values each: the first makes every kind of answer once (Next keeps its one not-found page) and lets the heap grow to what answering needs, the second is measured. ` +
    `On the server above, after its two floods: the build folder ${disk(madeUp)}; memory ${memory(madeUp)}. ` +
    `On a server of their own with the heap held to ${int(held.heapMiB)} MiB (\`--max-old-space-size\`), so that the collector keeps close behind: the build folder ${disk(held)}; memory ${memory(held)}. ` +
    `Under lectern's server a made-up value no longer reaches Next: each kind's one answer is rendered once and shared (\`lib/server/made-up.ts\`); through Next each value left some 25 KB to be collected late, so the heap, and the resident memory with it, grew by about 25 MiB per 1,000 values. \`tests/contract/made-up-urls.test.ts\` checks the same on the test site, with the heap held to 128 MiB.`
  );
}

function floodBlock() {
  const flood = results.flood;
  if (!flood) return undefined;
  const s = flood.settings;
  const row = (label, run) => [
    label,
    int(run.requests),
    Object.entries(run.statuses)
      .map(([status, count]) => `${status} × ${int(count)}`)
      .join(', '),
    int(run.etags),
    int(run.compressed),
    seconds(run.seconds),
    int(run.serverCpuUsPerRequest),
    mib(run.peakRssBytes),
  ];
  return [
    `\`npm run bench -- flood\`: lectern's server on the build of \`content/\`, ${int(s.concurrency)} requests in flight over keep-alive connections, each with a browser's \`Accept\` and \`Accept-Encoding: ${s.acceptEncoding}\`. ` +
      `First ${int(s.spellings)} distinct spellings of \`${s.post}\` (a pseudo-random set of its letters percent-encoded, hex digits in either case: \`/blog/%65tags-…\`), then \`/llms-full.txt?1\` to \`?${s.queries}\`. ` +
      `Resident memory of the server process (from \`/proc\`) after warming the post and \`/llms-full.txt\` and ${int(s.settleSeconds)} s of rest, and again ${int(s.settleSeconds)} s after the flood. ` +
      `CPU pressure from other work on the machine meanwhile (Linux PSI, share of time a task waited for a CPU): ${ms(flood.cpuPressure, 0)} %, which slows every request but not what memory holds.`,
    '',
    table(
      ['flood', 'requests', 'statuses', 'distinct ETags', 'compressed', 's', 'server µs CPU/request', 'peak memory'],
      [
        row('spellings of one post', flood.spellings),
        row('queries on `/llms-full.txt`', flood.queries),
        ...(flood.madeUp?.heldHeap
          ? [
              row('made-up values under every dynamic segment', flood.madeUp),
              row(`the same, heap held to ${int(flood.madeUp.heldHeap.heapMiB)} MiB`, flood.madeUp.heldHeap),
            ]
          : []),
      ],
    ),
    '',
    `Server memory: ${mib(flood.rssBeforeBytes)} before, ${mib(flood.rssAfterBytes)} after: **${signedMib(flood.growthBytes)}** (goal: under ${mib(flood.goalBytes)}). ` +
      `The post after the flood: ${flood.after.status}, ${flood.after.sameEtag ? 'the ETag it had before' : 'a different ETag'}, median ${ms(flood.after.cachedMs)} ms over 200 requests against ${ms(flood.after.renderedMs)} ms for \`/api/blog?limit=n\`, which reads its query and is rendered by Next every time: ${flood.after.fromMemory ? 'answered from memory' : '**not** answered from memory'}.`,
    ...(flood.madeUp?.heldHeap ? ['', madeUpParagraph(flood.madeUp, s)] : []),
  ].join('\n');
}

function searchBlock() {
  const search = results.search;
  // A run of the part over HTTP alone (--parts=http) with no earlier engine results here leaves the
  // section as it was; its figures are in the goals and the before and after tables.
  if (!search?.runs?.length) return undefined;
  const s = search.settings;
  const label = { lectern: "lectern's index", minisearch: 'MiniSearch', 'minisearch-topk': 'MiniSearch, top-k cut' };
  const runLabel = (run) => `${label[run.engine]}, ${run.corpus}, ${int(run.posts)}`;
  const worstOf = (run) => run.worst.reduce((high, row) => (row.cpu.p99 > high.cpu.p99 ? row : high));
  const lectern = search.runs.filter((run) => run.engine === 'lectern');
  const lines = [
    `\`npm run bench -- search\`: posts from \`bench/generate-posts.mjs\` held in memory and indexed in the benchmark's process, then ${int(s.queries)} queries of eight kinds (title words, body words, tags, prefixes, typos, two and three words, no match) each run ${s.rounds} times, \`limit\` 10, passages (section and marked snippet) included, then the worst queries of each corpus 50 times. ` +
      `Two corpora: **generated** (the build benchmark's posts: a vocabulary of about 200 words, so a typical word is in about 1,000 posts of 10,000) and **real** (the same posts with their text drawn from the ${int(s.vocabulary.words)} words of \`content/posts\` with their counts, ${int(s.vocabulary.occurrences)} occurrences: the site's common words are in most posts). ` +
      'Each search is timed twice: wall time, and the CPU time of the process during it (getrusage), which leaves out the time other work on the machine took the CPU; the goals are judged on CPU time, as the machine is shared. Index: heap used after a full GC, before and after the build, the posts held throughout.',
    '',
    table(
      ['engine, corpus, posts', 'build s', 'build CPU s', 'index heap', 'p50 ms', 'p99 ms', 'p99 CPU ms', 'max ms', 'worst query', 'its p99 CPU ms'],
      search.runs.map((run) => [
        runLabel(run),
        seconds(run.build.ms / 1000),
        seconds(run.build.cpuMs / 1000),
        signedMib(run.build.indexBytes),
        ms(run.search.p50, 3),
        ms(run.search.p99),
        `**${ms(run.search.cpu.p99)}**`,
        ms(run.search.max),
        worstOf(run).kind,
        ms(worstOf(run).cpu.p99),
      ]),
    ),
    '',
    "lectern's index by kind of query (p50 / p99 CPU, ms, and the median number of matching posts):",
    '',
    table(
      ['kind', ...lectern.map((run) => `${run.corpus}, ${int(run.posts)}`)],
      (lectern[0]?.kinds ?? []).map((row) => [
        row.kind,
        ...lectern.map((run) => {
          const kind = run.kinds.find((entry) => entry.kind === row.kind);
          return kind ? `${ms(kind.cpu.p50, 3)} / ${ms(kind.cpu.p99)} (${int(kind.medianMatches)})` : '–';
        }),
      ]),
    ),
    '',
    "The worst queries (each 50 times; p50 / p99 CPU, ms, and the posts matching), lectern's index:",
    '',
    table(
      ['query', ...lectern.map((run) => `${run.corpus}, ${int(run.posts)}`)],
      (lectern[0]?.worst ?? []).map((row) => [
        row.kind,
        ...lectern.map((run) => {
          const worst = run.worst.find((entry) => entry.kind === row.kind);
          return worst ? `${ms(worst.cpu.p50, 3)} / ${ms(worst.cpu.p99)} (${int(worst.matches)})` : '–';
        }),
      ]),
    ),
    '',
    `\`foldText\` (accents and case folded, every character kept at its index) over ${search.fold.texts} texts of ${int(search.fold.characters)} characters, as a search page of 50 results could ask: ${ms(search.fold.asciiMs)} ms ASCII, ${ms(search.fold.curlyMs)} ms with curly quotes.`,
  ];
  const h = search.http;
  if (h) {
    lines.push(
      '',
      `**Over HTTP**: ${int(h.posts)} real-corpus posts built with \`next build\` and served by lectern's server (pinned to one CPU, the clients to the other). ${h.builtAtStart ? `The server's log before any request: \`${h.builtAtStart}\`.` : "The server's log said nothing of the search index at start."} ` +
        `Each worst query once through \`/api/search\` (15 times; the API refuses the 200-character one: more than 10 different words): ${h.queries.map((row) => (row.refused ? `${row.kind}: refused` : `${row.kind} p50 ${ms(row.p50)} ms`)).join('; ')}. ` +
        `Then one client reading the cached \`/llms.txt\` in a loop, ${int(h.idle.count)} requests idle and ${int(h.loaded.count)} while 4 clients loop the costliest (${h.worst.kind}; ${int(h.searches.count)} searches, p50 ${ms(h.searches.p50)} ms):`,
      '',
      table(
        ['/llms.txt', 'p50 ms', 'p99 ms', 'max ms'],
        [
          ['idle', ms(h.idle.p50), ms(h.idle.p99), ms(h.idle.max)],
          ['under 4 searchers', ms(h.loaded.p50), ms(h.loaded.p99), ms(h.loaded.max)],
        ],
      ),
      '',
      `p99 under search ÷ idle: **${ratio(h.ratio)}×** (goal: within 2×).`,
    );
  }
  return lines.join('\n');
}

function newsletterBlock() {
  const n = results.newsletter;
  if (!n) return undefined;
  const k = n.kill;
  return [
    `\`npm run bench -- newsletter\`: lectern's server on the build of \`content/\` with ${int(n.subscribers)} confirmed subscribers in its SQLite store, sending one post through a local SMTP server (\`smtp-server\`, no rate limit, \`NEWSLETTER_RATE=0\`). ` +
      'The send is started in the store as the server starts one (the subscribers and the baseline are written before the server starts); it is timed from then until the store marks it sent. ' +
      'Reads: one cached post page at a time over keep-alive, idle before the send and all through it. Store growth: the SQLite file (after a WAL checkpoint) before and after, per recipient (the row and the unsubscribe token of its message). ' +
      `The machine's load average at the end: ${n.machine.loadAverage?.map((value) => value.toFixed(1)).join(', ') ?? '–'} on ${n.machine.cores} cores (other work ran meanwhile; the send's time and the reads' p99 move with it).`,
    '',
    table(
      ['measure', 'value', 'goal'],
      [
        [
          'whole send',
          `${seconds(n.send.seconds)} s (${int(n.send.sent)} sent, ${int(n.send.failed)} failed, ${int(n.send.duplicates)} received twice)`,
          `< ${n.goals.seconds} s`,
        ],
        [
          'server memory growth (peak during the send)',
          `${signedMib(n.growthBytes)} (${mib(n.rssBeforeBytes)} → ${mib(n.rssPeakBytes)})`,
          `< ${mib(n.goals.growthBytes)}`,
        ],
        ['store bytes per recipient', kib(n.storeBytesPerRecipient), `< ${kib(n.goals.bytesPerRecipient)}`],
        ['cached read p50 / p99, idle', `${ms(n.reads.idleP50Ms)} / ${ms(n.reads.idleP99Ms)} ms`, ''],
        [
          'cached read p50 / p99, during the send',
          `${ms(n.reads.duringP50Ms)} / ${ms(n.reads.duringP99Ms)} ms (${int(n.reads.duringCount)} reads)`,
          `p99 ≤ ${n.goals.p99Ratio}× idle`,
        ],
      ],
    ),
    '',
    k
      ? `**kill -9 half-way.** A second send was killed with ${int(k.deliveredAtKill)} of ${int(n.subscribers)} delivered; the server started again and finished it. ` +
        `Subscribers with the post: ${int(k.recipients)} (missing: ${int(k.missing)}); received twice: ${int(k.twice)} (the messages in flight at the kill), ${int(k.twiceWithOtherMessageId)} of them with another Message-ID.`
      : '**kill -9 half-way**: not run this time (`--kill=false`).',
  ].join('\n');
}

function fediverseBlock() {
  const f = results.fediverse;
  if (!f) return undefined;
  const d = f.delivery;
  const r = f.reads;
  const c = f.control;
  const after = (value) => (value === undefined ? '–' : `${seconds(value / 1000)} s`);
  return [
    `\`npm run bench -- fediverse\`: lectern's server (SQLite, \`DATA_DIR/fediverse.db\`) on the build of \`content/\` with one more post dated ahead, its clock moved so that the post goes live ${int(f.settings.leadSeconds)} s after the start. ` +
      `${int(f.followers)} followers are written into the fediverse's store before the server starts, ${int(f.followers / f.inboxes)} to a server on ${int(f.inboxes)} receiving servers on 127.0.0.1 (one port each, in a worker thread of the bench): each follower has its own inbox and its server's shared inbox, so Fedify, preferring shared inboxes, sends one copy to each server. ` +
      "The servers answer 202 and count every activity by inbox and by ID. The delivery is timed from the post's time until every inbox has the `Create`; memory is the server's process tree, sampled every 200 ms (growth: peak − just before the post's time). " +
      `Reads: one cached post page (\`${f.settings.page}\`) at a time over keep-alive, idle before the post's time and all through, from the post's time until the last inbox had it (the post going live, with its pages made anew, included). ` +
      `The machine's load average at the end: ${f.machine.loadAverage?.map((value) => value.toFixed(1)).join(', ') ?? '–'} on ${f.machine.cores} cores (other work ran meanwhile).`,
    '',
    table(
      ['measure', 'value', 'goal'],
      [
        [
          'whole delivery (post time → last inbox)',
          `${d.complete ? '' : 'not complete after '}${seconds(d.seconds)} s (${int(d.inboxesReached)} of ${int(f.inboxes)} inboxes reached, ${int(d.duplicates)} duplicates)`,
          `< ${f.goals.seconds} s`,
        ],
        [
          'where the time went',
          `queued by ${after(d.queuedAfterMs)} after the post's time (the server's log, read every 0.2 s), first inbox at ${after(d.firstArrivalMs)}, half at ${after(d.halfArrivedMs)}, last at ${after(d.lastArrivalMs)}; ${int(d.maxConcurrentPosts)} in flight at once at most; server CPU ${seconds(d.serverCpuSeconds)} s`,
          '',
        ],
        [
          'what arrived',
          `${int(d.posts)} posts (${int(d.signed)} signed, ${int(d.personalInboxPosts)} to a follower's own inbox, ${kib(d.bytesPerPost)} each); ${int(d.failuresLogged)} failures logged`,
          '',
        ],
        [
          'server memory growth (peak during the delivery)',
          `${signedMib(f.growthBytes)} (${mib(f.rssBeforeBytes)} → ${mib(f.rssPeakBytes)}; ${mib(f.rssAfterBytes)} 3 s after; ${signedMib(f.growthBeforeFirstArrivalBytes)} of it before the first inbox had the post)`,
          `< ${mib(f.goals.growthBytes)}`,
        ],
        ['cached read p50 / p99, idle', `${ms(r.idleP50Ms)} / ${ms(r.idleP99Ms)} ms (${int(r.idleCount)} reads)`, ''],
        [
          'cached read p50 / p99, post time → last inbox',
          `${ms(r.duringP50Ms)} / ${ms(r.duringP99Ms)} ms (${int(r.duringCount)} reads, slowest ${ms(r.duringMaxMs)} ms)`,
          `p99 ≤ ${f.goals.p99Ratio}× idle`,
        ],
        ['cached read p99, first inbox → last', `${ms(r.deliveringP99Ms)} ms (${int(r.deliveringCount)} reads)`, ''],
        ...(c
          ? [
              [
                `the same post going live with no followers, over the same ${seconds(c.seconds)} s`,
                `memory ${signedMib(c.growthBytes)}; cached read p50 / p99 ${ms(c.reads.duringP50Ms)} / ${ms(c.reads.duringP99Ms)} ms (idle p99 ${ms(c.reads.idleP99Ms)} ms); server CPU ${seconds(c.serverCpuSeconds)} s`,
                '',
              ],
            ]
          : []),
      ],
    ),
  ].join('\n');
}

function publishBlock() {
  const publish = results.publish;
  if (!publish) return undefined;
  const s = publish.settings;
  const measured = publish.sizes.filter((size) => size.error === undefined);
  const failed = publish.sizes.filter((size) => size.error !== undefined);
  return [
    `\`npm run bench -- publish\`: for each size, generated posts of which the newest ${int(s.scheduled)} are dated ahead, ${int(s.spacingSeconds)} s apart; one \`next build\`; lectern's server started with its clock moved so the first comes due ${int(s.leadSeconds)} s later. ` +
      `From each post's time on, every output is asked at once, again every 20 ms, until each shows it (its page, markdown, API markdown, home, /blog, its tag page and tag feed, RSS, Atom, JSON Feed, sitemap, llms.txt, search): the delay runs from the post's time to the end of that check. ` +
      `CPU: the server's, from one second before the time to the end of the check, less its idle CPU over the same span (it includes regenerating every asked output). Reads: median of ${int(s.reads)} GETs of a cached post before the first post and between posts. ` +
      (s.readers
        ? `At the minute: ${int(s.readers)} clients loop over every output and a cached post from 2 s before each post's time; the slowest of their reads sent between the time and the post being everywhere (worst over the posts), and their p99 then and before the time (median over the posts).`
        : ''),
    '',
    table(
      [
        'posts',
        'delay p50',
        'delay max',
        'CPU per publish (median)',
        'CPU max',
        'cached read p50 before',
        'between',
        ...(s.readers ? ['slowest read at the minute', 'p99 at the minute', 'p99 before'] : []),
      ],
      measured.map((size) => [
        int(size.size),
        `${int(size.delayP50Ms)} ms`,
        `${int(size.delayMaxMs)} ms`,
        `${int(size.cpuSecondsMedian * 1000)} ms`,
        `${int(size.cpuSecondsMax * 1000)} ms`,
        `${ms(size.readP50BeforeMs)} ms`,
        `${ms(size.readP50BetweenMs)} ms`,
        ...(s.readers ? [`${int(size.readMaxAtTheMinuteMs)} ms`, `${ms(size.readP99AtTheMinuteMs)} ms`, `${ms(size.readP99BeforeMs)} ms`] : []),
      ]),
    ),
    '',
    ...measured.map(
      (size) =>
        `${int(size.size)} posts, the output each post reached last: ${size.runs
          .map((run) => {
            const [pathname, arrived] = Object.entries(run.arrivedMs).sort((a, b) => b[1] - a[1])[0];
            return `\`${pathname}\` (${int(arrived)} ms)`;
          })
          .join(', ')}.`,
    ),
    ...(failed.length ? ['', ...failed.map((size) => `${int(size.size)} posts: not measured (${size.error}).`)] : []),
  ].join('\n');
}

/** A cached read's latency idle and under the MCP and search floods (bench/load.mjs). */
function loadBlock() {
  const load = results.load;
  if (!load) return undefined;
  const s = load.settings;
  const { idle, mcp, search } = load.phases;
  const statuses = (run) =>
    Object.entries(run?.statuses ?? {})
      .map(([status, count]) => `${status} × ${int(count)}`)
      .join(', ');
  const row = (label, phase, ratioToIdle) => [
    label,
    int(phase.reads),
    ms(phase.p50),
    ms(phase.p99),
    ratioToIdle === undefined ? '–' : `${ratio(ratioToIdle)}×`,
    ms(phase.max, 1),
    phase.load ? `${int(phase.load.requests)}: ${statuses(phase.load)}` : '–',
    phase.load ? `${int(phase.load.p50)} / ${int(phase.load.p99)}` : '–',
    ms(phase.cpuPressure, 0),
    phase.loadAverage.map((value) => value.toFixed(2)).join(' → '),
  ];
  return [
    `\`npm run bench -- load\` (${day(load.finishedAt)}, commit ${load.machine.commit}): lectern's server on the build of \`content/\`, unpinned (its search thread takes the MCP calls and searches). ` +
      `A process of its own reads \`${s.read}\` (answered from memory) over one keep-alive connection, one request then ${5} ms, ${int(s.idle)} s idle, then ${int(s.duration)} s under each flood: ` +
      `${int(s.mcpClients)} MCP clients, each on a loopback address of its own (127.0.0.2 …), cycling \`search_posts\` (10 words, limit 50), \`list_posts\`, \`fetch\` and \`tools/list\` as fast as they are answered; ` +
      `then ${int(s.searchConnections)} connections looping the worst query \`/api/search\` accepts (\`${s.worst.slice(0, 60)}…\`, ${s.worst.length} characters). ` +
      `Goal: the read's p99 within ${s.goalRatio}× its idle p99. Other work ran on the two cores meanwhile: the CPU pressure (Linux PSI, share of time some task waited for a CPU) and the load average are given per phase.`,
    '',
    table(
      ['phase', 'reads', 'p50 ms', 'p99 ms', 'p99 / idle', 'max ms', 'flood requests: statuses', 'flood p50 / p99 ms', 'CPU pressure %', 'load average'],
      [row('idle', idle), row('MCP flood', mcp, load.ratios.mcp), row('search flood', search, load.ratios.search)],
    ),
    '',
    `MCP flood: p99 **${ratio(load.ratios.mcp)}×** idle (${yes(load.ratios.mcp <= s.goalRatio)}); search flood: **${ratio(load.ratios.search)}×** idle (${yes(load.ratios.search <= s.goalRatio)}).`,
  ].join('\n');
}

/** The runtime of the --before side, from whichever part measured one: { ref, node }. */
function beforeRuntime() {
  const from = [
    results.reads?.settings?.beforeNode && { ref: results.reads.settings.before, node: results.reads.settings.beforeNode },
    results.search?.http?.beforeAfter && { ref: results.search.http.beforeAfter.ref, node: results.search.http.beforeAfter.node.before },
    ...(results.build?.sizes ?? []).map((size) => size.beforeAfter && { ref: size.beforeAfter.ref, node: size.beforeAfter.node.before }),
    results.newsletter?.beforeAfter && { ref: results.newsletter.beforeAfter.ref, node: results.newsletter.beforeAfter.node.before },
    ...(results.store?.sides ?? []).filter((side) => side.id === 'before').map((side) => ({ ref: side.ref, node: side.node })),
  ];
  return from.find(Boolean);
}

function nodeRow(node) {
  const before = beforeRuntime();
  return before ? `${node} (the working tree); ${before.node} (the project at \`${before.ref?.slice(0, 7)}\`, measured beside it with \`--before\`)` : node;
}

/** Median of the rounds and their spread, (max − min) ÷ median: the run-to-run noise of one side. */
function rounds(values) {
  const list = values.filter(Number.isFinite);
  const sorted = [...list].sort((a, b) => a - b);
  const mid = sorted.length
    ? sorted.length % 2
      ? sorted[(sorted.length - 1) / 2]
      : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2
    : undefined;
  return { median: mid, count: list.length, spread: list.length > 1 ? (sorted[sorted.length - 1] - sorted[0]) / mid : undefined };
}

const pct = (share, digits = 1) => (share === undefined || !Number.isFinite(share) ? '–' : `${(share * 100).toFixed(digits)} %`);

/**
 * One row of the before and after table. `better`: 'higher' or 'lower'. The noise is the larger
 * spread of the two sides' rounds; a figure fails when it is worse by more than 5 % plus that noise.
 */
function comparison(part, label, beforeValues, afterValues, { better = 'lower', format = (value) => ms(value) } = {}) {
  const was = rounds(beforeValues);
  const now = rounds(afterValues);
  const change = now.median / was.median;
  const worse = better === 'lower' ? change - 1 : 1 / change - 1;
  const noise = Math.max(was.spread ?? 0, now.spread ?? 0);
  const known = was.spread !== undefined || now.spread !== undefined;
  // With one round a side there is no noise to judge by: no verdict.
  const pass = Number.isFinite(worse) && known ? worse <= GOALS.worseShare + noise : undefined;
  return { part, label, was, now, change, worse, noise: known ? noise : undefined, pass, format, better };
}

function comparisons() {
  const rows = [];
  const reads = results.reads;
  if (reads?.settings?.before) {
    for (const row of reads.summary) {
      const of = (server, key) => reads.runs.filter((run) => run.target === row.target && run.server === server).map((run) => run[key]);
      rows.push(comparison('reads', `\`${row.path}\` req/s`, of('before', 'rps'), of('lectern', 'rps'), { better: 'higher', format: int }));
      rows.push(comparison('reads', `\`${row.path}\` p99 ms`, of('before', 'p99'), of('lectern', 'p99')));
      rows.push(
        comparison('reads', `\`${row.path}\` server CPU µs per request`, of('before', 'serverCpuUsPerRequest'), of('lectern', 'serverCpuUsPerRequest'), {
          format: int,
        }),
      );
    }
  }
  const search = results.search?.http?.beforeAfter;
  if (search) {
    const of = (id, pick) => search.rounds[id].map(pick);
    rows.push(
      comparison(
        'search',
        '`/llms.txt` p99 ms, idle',
        of('before', (r) => r.idle.p99),
        of('after', (r) => r.idle.p99),
      ),
    );
    rows.push(
      comparison(
        'search',
        '`/llms.txt` p99 ms, 4 clients looping the worst search',
        of('before', (r) => r.loaded.p99),
        of('after', (r) => r.loaded.p99),
      ),
    );
    rows.push(
      comparison(
        'search',
        '`/api/search` (worst query) p50 ms, 4 at once',
        of('before', (r) => r.searches.p50),
        of('after', (r) => r.searches.p50),
      ),
    );
    rows.push(
      comparison(
        'search',
        '`/api/search` (worst query) p99 ms, 4 at once',
        of('before', (r) => r.searches.p99),
        of('after', (r) => r.searches.p99),
      ),
    );
  }
  for (const size of results.build?.sizes ?? []) {
    const b = size.beforeAfter;
    if (!b) continue;
    const of = (id, key) => b.rounds[id].map((r) => r[key]);
    const posts = int(size.posts);
    rows.push(comparison('build', `${posts}-post build, wall s`, of('before', 'wallSeconds'), of('after', 'wallSeconds'), { format: seconds }));
    rows.push(comparison('build', `${posts}-post build, CPU s`, of('before', 'cpuSeconds'), of('after', 'cpuSeconds'), { format: seconds }));
    rows.push(
      comparison('build', `${posts}-post build, peak memory (all processes)`, of('before', 'peakTreeRssBytes'), of('after', 'peakTreeRssBytes'), {
        format: mib,
      }),
    );
  }
  const newsletter = results.newsletter?.beforeAfter;
  if (newsletter) {
    const of = (id, key) => newsletter.rounds[id].map((r) => r[key]);
    const n = int(results.newsletter.subscribers);
    rows.push(comparison('newsletter', `send to ${n}, s`, of('before', 'seconds'), of('after', 'seconds'), { format: seconds }));
    rows.push(comparison('newsletter', 'server memory, peak during the send', of('before', 'rssPeakBytes'), of('after', 'rssPeakBytes'), { format: mib }));
    rows.push(comparison('newsletter', 'server memory growth during the send', of('before', 'growthBytes'), of('after', 'growthBytes'), { format: signedMib }));
    rows.push(comparison('newsletter', 'cached read p99 ms during the send', of('before', 'duringP99Ms'), of('after', 'duringP99Ms')));
  }
  const store = results.store?.sides;
  const storeBefore = store?.find((side) => side.id === 'before');
  const storeAfter = store?.find((side) => side.id === 'after');
  if (storeBefore && storeAfter) {
    for (const medium of Object.keys(storeAfter.media))
      for (const op of ['subscribe', 'claimDue', 'markSent']) {
        const name = `${op === 'subscribe' ? '`subscribers.subscribe`' : `\`outbox.${op}\``} (${MEDIUM[medium]})`;
        const was = storeBefore.media[medium][op];
        const now = storeAfter.media[medium][op];
        rows.push(comparison('store', `${name} ops/s`, was.opsPerSecond.runs, now.opsPerSecond.runs, { better: 'higher', format: int }));
        rows.push(comparison('store', `${name} p99 ms`, was.p99Ms.runs, now.p99Ms.runs, { format: (value) => ms(value, 3) }));
      }
  }
  return rows;
}

const MEDIUM = { disk: 'disk', memory: 'tmpfs' };

function beforeAfterBlock() {
  const rows = comparisons();
  const before = beforeRuntime();
  if (!rows.length || !before) return undefined;
  const m = Object.values(results).find(Boolean).machine;
  const parts = [...new Set(rows.map((row) => row.part))];
  const load = parts
    .map((part) => [part, results[part]?.machine?.loadAverage])
    .filter(([, value]) => value)
    .map(([part, value]) => `${part} ${value.map((v) => v.toFixed(1)).join(' / ')}`)
    .join('; ');
  const failed = rows.filter((row) => row.pass === false);
  const roundsOf = (row) => `${row.was.count}+${row.now.count}`;
  return [
    `Before: the project at \`${before.ref?.slice(0, 7)}\` on Node.js ${before.node} (Debian's), better-sqlite3 compiled for it at install; after: the working tree on Node.js ${m.node} from the \`node\` package, the store on \`node:sqlite\`. ` +
      "Both measured in the same run of the bench (`--before`), each copy with its own node_modules and runtime, the same content and load, the two sides interleaved in rounds where the part runs rounds (reads: every URL of every round; search and the store: alternating rounds; build and newsletter: alternating builds and sends, after the part's own first round). " +
      'Figures are medians of the rounds. **Noise** is the run-to-run spread of the rounds, (max − min) ÷ median, the larger of the two sides; a figure **passes** unless it is worse after by more than 5 % plus that noise. "after ÷ before" below 1 is less time, memory or latency, and fewer operations per second.',
    '',
    `Measured on a shared machine (${m.cores} cores): other engineers' builds and tests ran at the same time${m.nice ? `; the bench ran at niceness ${m.nice} (BENCH_NICE)` : ''}. Load average (1 / 5 / 15 min) as each part ended: ${load}. Absolute figures move with that load; the two sides of a row met the same load within a few minutes.`,
    '',
    table(
      ['part', 'figure', 'before', 'after', 'after ÷ before', 'worse by', 'noise', 'rounds', 'passes'],
      rows.map((row) => [
        row.part,
        row.label,
        row.format(row.was.median),
        row.format(row.now.median),
        ratio(row.change),
        row.worse > 0 ? pct(row.worse) : '–',
        pct(row.noise),
        roundsOf(row),
        row.pass === undefined ? '–' : row.pass ? 'yes' : '**no**',
      ]),
      2,
    ),
    '',
    failed.length
      ? `**Worse by more than 5 % beyond the noise: ${failed.length} of ${rows.length}** (${failed.map((row) => `${row.part}: ${row.label}`).join('; ')}).`
      : `**No figure is worse by more than 5 % beyond the run-to-run noise** (${rows.length} figures).`,
  ].join('\n');
}

function storeBlock() {
  const store = results.store;
  if (!store?.sides?.[0]?.media) return undefined;
  const s = store.settings;
  const ops = [
    ['subscribe', '`subscribers.subscribe` (a new address, its confirmation mail queued)'],
    ['claimDue', `\`outbox.claimDue\` (up to ${s.batch} mails)`],
    ['markSent', '`outbox.markSent` (one mail)'],
  ];
  const media = s.media.map((medium) => medium.id);
  return [
    `\`npm run bench -- store\`: writes through the store API (\`openSqliteStore\`: WAL, \`synchronous = FULL\`) by one script (\`bench/lib/store-writes.mjs\`) run inside each tree on that tree's runtime (\`node --import tsx\`): ${int(s.subscribers)} \`subscribers.subscribe\` calls, each queueing its confirmation mail, then the outbox emptied as the mail worker empties it (\`claimDue\` of ${s.batch}, then \`markSent\` for each). ` +
      `${s.rounds} round${s.rounds === 1 ? '' : 's'}${store.sides.length > 1 ? ', the two trees alternating which goes first' : ''}; medians of the rounds, and their spread, (max − min) ÷ median.${s.pinned ? ' Pinned to CPU 0.' : ''} ` +
      `Each round twice: the store file on the machine's disk (${s.media.find((m) => m.id === 'disk')?.dir}), where every write waits for its fsync as on a site, and on tmpfs (${s.media.find((m) => m.id === 'memory')?.dir ?? '–'}), where fsync costs nothing and what remains is the SQLite library and the runtime. ` +
      `Machine load average at the end: ${store.machine.loadAverage?.map((value) => value.toFixed(1)).join(' / ') ?? '–'} on ${store.machine.cores} cores (shared: the disk figures move with other work's writes).`,
    '',
    table(
      ['store on', 'tree', 'runtime, SQLite', 'operation', 'ops/s', 'spread', 'p50 ms', 'p99 ms', 'p99 spread'],
      media.flatMap((medium) =>
        ops.flatMap(([op, label]) =>
          store.sides.map((side) => [
            MEDIUM[medium],
            side.id === 'before' ? `before: \`${side.ref?.slice(0, 7)}\`` : 'after: working tree',
            `${side.node}, ${side.sqlite?.library} (SQLite ${side.sqlite?.version})`,
            label,
            int(side.media[medium][op].opsPerSecond.median),
            pct(side.media[medium][op].opsPerSecond.spread, 0),
            ms(side.media[medium][op].p50Ms.median, 3),
            ms(side.media[medium][op].p99Ms.median, 3),
            pct(side.media[medium][op].p99Ms.spread, 0),
          ]),
        ),
      ),
      4,
    ),
  ].join('\n');
}

/** Server CPU seconds per GiB sent, the median of the rounds. */
const cpuPerGib = (rounds) => median(rounds.map((round) => round.cpuSeconds / (round.bytes / 2 ** 30)));

/** Downloads from lectern's own server beside nginx, and the link check (bench/downloads.mjs). */
function downloadsBlock() {
  const downloads = results.downloads;
  if (!downloads) return undefined;
  const s = downloads.settings;
  const row = (name, result) => [
    name,
    `${result.complete}/${s.concurrency}`,
    seconds(result.seconds),
    int(result.mibPerSecond),
    seconds(result.cpuSeconds),
    name.startsWith('lectern') ? mib(result.peakRssBytes) : '–',
  ];
  return [
    `\`npm run bench -- downloads\`: a ${mib(s.sizeBytes)} file generated in a temporary folder stands in for the book's first file in the bench's copy of the site, and an order for the book is in the server's SQLite store. ` +
      `${s.rounds} interleaved rounds: ${s.concurrency} clients at once, each on its own connection, download the whole file through one signed link from lectern's server (the link checked and counted, the file read from disk in 256 KiB chunks into two buffers per download and written as the socket takes them, \`lib/server/downloads.ts\`), and the same file from nginx from disk (one worker, \`sendfile on\`).${s.pinned ? ' Servers pinned to CPU 0, the clients to CPU 1.' : ''} ` +
      `lectern's resident memory (its process tree, from \`/proc\`, every 100 ms; \`PREWARM=0\`, so no page is made in the background meanwhile) against the same after one warm-up download and ${int(s.settleSeconds)} s of rest. ` +
      `CPU pressure from other work meanwhile (Linux PSI): ${ms(downloads.cpuPressure, 0)} %; load average at the end ${downloads.loadAverage?.map((value) => value.toFixed(1)).join(' / ') ?? '–'} on a shared machine, so throughput moves between runs; the ratio of the two servers in the same run is the figure to read.`,
    '',
    table(
      ['server, round', 'complete', 's', 'MiB/s', 'server CPU s', 'peak memory'],
      downloads.rounds.lectern.flatMap((result, index) => [
        row(`lectern, round ${index + 1}`, result),
        row(`nginx, round ${index + 1}`, downloads.rounds.nginx[index]),
      ]),
    ),
    '',
    `Throughput (medians): lectern ${int(downloads.lecternMibPerSecond)} MiB/s, nginx ${int(downloads.nginxMibPerSecond)} MiB/s: **${pct(downloads.throughputRatio, 0)}** (goal: at least ${pct(downloads.goals.throughputRatio, 0)}). ` +
      `CPU per GiB sent (medians): lectern ${ms(cpuPerGib(downloads.rounds.lectern))} s, nginx ${ms(cpuPerGib(downloads.rounds.nginx))} s; when the clients and the machine's other work set the pace, as here, the throughput ratio says little beyond "not the bottleneck", and the CPU is what each server costs. ` +
      `lectern's memory: ${mib(downloads.rssBeforeBytes)} before, ${mib(downloads.peakRssBytes)} at the peak, ${mib(downloads.rssAfterBytes)} ${int(s.settleSeconds)} s after: **${signedMib(downloads.growthBytes)}** (goal: under ${mib(downloads.goals.growthBytes)}).`,
    '',
    table(
      ['link check, in-process, SQLite', 'iterations', 'p50 ms', 'p99 ms', 'max ms'],
      [
        ['signature and store read (`readLink`, `orders.useLink`)', downloads.checks.check],
        ['the same, the download counted (a write, `synchronous = FULL`)', downloads.checks.counted],
      ].map(([label, check]) => [label, int(check.iterations), ms(check.p50Ms, 3), ms(check.p99Ms, 3), ms(check.maxMs, 3)]),
    ),
  ].join('\n');
}

const BLOCKS = {
  machine: machineBlock,
  goals: goalsBlock,
  beforeafter: beforeAfterBlock,
  reads: readsBlock,
  build: buildBlock,
  memory: memoryBlock,
  limits: limitsBlock,
  weight: weightBlock,
  flood: floodBlock,
  load: loadBlock,
  search: searchBlock,
  newsletter: newsletterBlock,
  fediverse: fediverseBlock,
  store: storeBlock,
  publish: publishBlock,
  downloads: downloadsBlock,
};

const HEADINGS = {
  machine: '## Machine',
  goals: '## Goals at a glance',
  beforeafter: '## Before and after: Node 20 → Node 24',
  reads: '## Reads',
  build: '## Build',
  memory: '## Build memory',
  limits: '## Write routes: limit decisions',
  weight: '## Page weight',
  flood: '## Memory under a flood of URLs',
  load: '## Readers first under load',
  search: '## Search',
  newsletter: '## Newsletter',
  fediverse: '## On the fediverse',
  store: '## Store writes',
  publish: '## Publishing on time',
  downloads: '## Downloads',
};

const INTRO = `# Benchmarks

\`npm run bench\` measures lectern against fixed references and writes the tables below
(\`npm run bench -- reads\`, \`build\`, \`build-memory\`, \`limits\`, \`store\`, \`flood\`, \`search\`, \`weight\`, \`profile\` or \`report\`
runs one part; \`bash bench/run.sh --help\` lists the options). Load stays on loopback addresses
and every run stops by itself. Results are kept as JSON in \`bench/.work/results/\` and the
tables are regenerated from them; a part not run keeps its tables as they were. Benchmarks
are not part of CI.

The machine has two cores and other work often runs on it at the same time, so absolute
requests/s and build times move between runs. Prefer the ratios measured in the same run,
the CPU time per request and per build, and the CPU pressure printed beside the reads.
`;

/** The command that measures a block, where it is not the block's name. */
const NOT_MEASURED = { memory: 'build-memory', beforeafter: 'store reads search build newsletter --before=REF --sizes=10000' };

function render(existing) {
  let text = existing ?? INTRO;
  const missing = [];
  for (const [name, make] of Object.entries(BLOCKS)) {
    const pattern = new RegExp(`<!-- bench:${name} -->[\\s\\S]*?<!-- /bench:${name} -->`);
    const current = pattern.exec(text)?.[0];
    const made = make(current);
    // A part with no results here keeps what BENCHMARKS.md says of it.
    if (made === undefined && current !== undefined) continue;
    const block = `<!-- bench:${name} -->\n${made ?? `_Not measured yet: \`npm run bench -- ${NOT_MEASURED[name] ?? name}\`._`}\n<!-- /bench:${name} -->`;
    if (current !== undefined) text = text.replace(pattern, () => block);
    else missing.push(`${HEADINGS[name]}\n\n${block}\n`);
  }
  if (missing.length) {
    if (!/^# /m.test(text)) text = `${INTRO}\n${text}`;
    // New blocks go before the first section nobody generated (another part of BENCHMARKS.md, such as Lighthouse), else at the end.
    const lines = text.split('\n');
    let inside = false;
    let at = -1;
    for (let i = 0; i < lines.length; i += 1) {
      if (/^<!-- bench:\w+ -->$/.test(lines[i])) inside = true;
      else if (/^<!-- \/bench:\w+ -->$/.test(lines[i])) inside = false;
      else if (!inside && /^## /.test(lines[i]) && !Object.values(HEADINGS).includes(lines[i]) && !/^## (Findings|How to run)/.test(lines[i])) {
        at = i;
        break;
      }
    }
    const insert = missing.join('\n');
    if (at === -1) text = `${text.replace(/\n*$/, '\n\n')}${insert}`;
    else text = [...lines.slice(0, at), insert, ...lines.slice(at)].join('\n');
  }
  return text.replace(/\n{3,}/g, '\n\n').replace(/\n*$/, '\n');
}

const before = fs.existsSync(FILE) ? fs.readFileSync(FILE, 'utf8') : undefined;
const after = render(before);
fs.writeFileSync(FILE, after);
console.log(`${before === undefined ? 'wrote' : 'updated'} BENCHMARKS.md`);
