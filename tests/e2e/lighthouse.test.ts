import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/site';
import { launch, url } from './support/browser';
import { richestPost } from './support/pages';
import {
  CATEGORIES,
  cpuSlowdownFor,
  DEFAULT_CPU_SLOWDOWN,
  lostPoints,
  measureBenchmarkIndex,
  REPORT_DIR,
  robotsTxtProblems,
  runLighthouse,
  scoresOf,
  type Report,
  type Scores,
} from './support/lighthouse';

/** CI fails below this score in accessibility, best practices and SEO. */
const THRESHOLD = 0.95;
/**
 * Performance is a speed figure: it moves with the host's CPU (the same build scores from the
 * 60s to the 90s on one machine as other work comes and goes), so it is recorded in
 * BENCHMARKS.md (median of five runs, as Lighthouse CI does) and never fails the suite.
 */
const ASSERTED = CATEGORIES.filter((category) => category !== 'performance');
const RECORD = process.env.LIGHTHOUSE_RECORD === '1';
const RUNS = RECORD ? 5 : 1;
const BENCHMARKS = path.join(ROOT, 'BENCHMARKS.md');

type Run = { performance: number; benchmarkIndex: number; cpuSlowdown: number };
type Result = { name: string; path: string; report: Report; reported: Scores; judged: Scores; notes: string[]; runs: Run[] };
const results: Result[] = [];
let targets: { name: string; path: string }[] = [];
let browser: Browser;
let benchmarkPage: Page;

beforeAll(async () => {
  browser = await launch();
  benchmarkPage = await browser.newPage();
  // A post that shows everything a post can hold: highlighted code, a table and an image.
  targets = [
    { name: 'home', path: '/' },
    { name: 'post', path: await richestPost() },
  ];
  // Every page measured is first rendered once, so runs measure what readers get: the server's memory copy.
  for (const target of targets) await (await fetch(url(target.path))).arrayBuffer();
});

describe('Lighthouse (mobile, simulated throttling)', () => {
  for (const name of ['home', 'post']) {
    it(`${name} scores at least ${THRESHOLD * 100} in accessibility, best practices and SEO`, { timeout: 600_000 }, async () => {
      const target = targets.find((entry) => entry.name === name)!;
      const reports: Report[] = [];
      const runs: Run[] = [];
      for (let run = 1; run <= RUNS; run += 1) {
        // Measured right before each run: a host that is slower or busier than Lighthouse assumes is throttled less.
        const benchmarkIndex = await measureBenchmarkIndex(benchmarkPage);
        const cpuSlowdown = cpuSlowdownFor(benchmarkIndex);
        const report = await runLighthouse(url(target.path), `${name}-${run}`, { cpuSlowdown, attempts: 3 });
        reports.push(report);
        runs.push({ performance: report.categories.performance.score ?? 0, benchmarkIndex: Math.round(benchmarkIndex), cpuSlowdown });
      }
      const median = [...reports].sort((a, b) => (a.categories.performance.score ?? 0) - (b.categories.performance.score ?? 0))[Math.floor(RUNS / 2)]!;
      const { reported, judged, notes } = scoresOf(median);
      results.push({ ...target, report: median, reported, judged, notes, runs });

      expect(robotsTxtProblems(median)).toEqual([]);
      const failing = ASSERTED.filter((category) => judged[category] < THRESHOLD);
      expect(failing, `${target.path}: ${JSON.stringify(judged)}\n${lostPoints(median).join('\n')}`).toEqual([]);
    });
  }
});

function percent(score: number): string {
  return String(Math.round(score * 100));
}

function section(): string {
  const first = results[0]!.report;
  const lines = [
    '## Lighthouse',
    '',
    `Lighthouse ${first.lighthouseVersion}, ${first.configSettings.formFactor} (Lighthouse's default: slow 4G, simulated throttling), Debian's Chromium,`,
    "against the production build of `content/` served by lectern's server on loopback (`tests/e2e/lighthouse.test.ts`).",
    `Each page is measured ${RUNS} times and the run with the median performance score is recorded; CI fails below ${THRESHOLD * 100} in accessibility, best practices or SEO (performance, a speed figure, is recorded here and not asserted).`,
    `The CPU slowdown is Lighthouse's ${DEFAULT_CPU_SLOWDOWN}x, lowered on a host that benchmarks slower than Lighthouse's reference`,
    "(the calibration in Lighthouse's throttling guide), so a busy CI machine emulates the same phone rather than a slower one.",
    '',
    '| page | performance | accessibility | best practices | SEO |',
    '|---|---|---|---|---|',
    ...results.map(
      (result) =>
        `| \`${result.path}\` | ${percent(result.judged.performance)} | ${percent(result.judged.accessibility)} | ${percent(result.judged['best-practices'])} | ${percent(result.judged.seo)}${result.judged.seo !== result.reported.seo ? ` (${percent(result.reported.seo)} as reported)` : ''} |`,
    ),
    '',
    'Performance of every run (benchmark index, CPU slowdown):',
    '',
    ...results.map(
      (result) => `- \`${result.path}\`: ${result.runs.map((run) => `${percent(run.performance)} (${run.benchmarkIndex}, ${run.cpuSlowdown}x)`).join(', ')}`,
    ),
    '',
  ];
  if (results.some((result) => result.judged.seo !== result.reported.seo)) {
    lines.push(
      'SEO: Lighthouse\'s robots-txt audit reports each `Content-Signal:`, `Content-Usage:` and `License:` line of `/robots.txt` as an "Unknown directive" and fails. The',
      "lines are there on purpose (the site's terms: Content Signals, IETF AIPREF, RSL) and RFC 9309 allows records beyond its own, so the judged SEO score leaves",
      'that one audit out, and the test fails if the audit finds anything else in robots.txt. The score as Lighthouse reports it is in brackets.',
      '',
    );
  }
  lines.push(
    `Full reports: \`test-results/lighthouse/\` after \`npm test\`; \`LIGHTHOUSE_RECORD=1 npm test\` rewrites this section. Measured ${new Date().toISOString().slice(0, 10)} on the machine above.`,
    '',
  );
  return lines.join('\n');
}

/** Replaces the Lighthouse section of BENCHMARKS.md (from its heading to the next `## `), leaving every other section as it is. */
function recordInBenchmarks(text: string): void {
  const current = fs.existsSync(BENCHMARKS) ? fs.readFileSync(BENCHMARKS, 'utf8') : '# Benchmarks\n';
  const start = current.search(/^## Lighthouse\s*$/m);
  if (start === -1) {
    fs.writeFileSync(BENCHMARKS, `${current.replace(/\n*$/, '\n\n')}${text}`);
    return;
  }
  const rest = current.slice(start + 1);
  const next = rest.search(/^## /m);
  const end = next === -1 ? current.length : start + 1 + next;
  fs.writeFileSync(BENCHMARKS, `${current.slice(0, start)}${text}${next === -1 ? '' : '\n'}${current.slice(end)}`);
}

afterAll(async () => {
  await browser?.close();
  if (results.length === 0) return;
  const text = section();
  fs.mkdirSync(REPORT_DIR, { recursive: true });
  fs.writeFileSync(path.join(REPORT_DIR, 'summary.md'), text);
  // BENCHMARKS.md is committed: it changes only when asked (LIGHTHOUSE_RECORD=1), not on every test run.
  if (process.env.LIGHTHOUSE_RECORD === '1' && results.length === 2) recordInBenchmarks(text);
});
