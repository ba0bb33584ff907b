import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT } from '../../support/site';
import { CHROME_FLAGS, CHROMIUM_PATH } from './browser';

export const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
export type Category = (typeof CATEGORIES)[number];
export type Scores = Record<Category, number>;

type Audit = {
  id: string;
  score: number | null;
  scoreDisplayMode: string;
  title: string;
  displayValue?: string;
  details?: { items?: Record<string, unknown>[] };
};
export type Report = {
  lighthouseVersion: string;
  finalDisplayedUrl: string;
  configSettings: { formFactor: string; throttling: { cpuSlowdownMultiplier: number } };
  environment: { benchmarkIndex: number };
  categories: Record<Category, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, Audit>;
};

export const REPORT_DIR = path.join(ROOT, 'test-results/lighthouse');

/** Lighthouse's default mobile CPU slowdown, meant for a host with a benchmark index of about 1533. */
export const DEFAULT_CPU_SLOWDOWN = 4;

/**
 * Lighthouse's benchmark (core/lib/page-functions.js, computeBenchmarkIndex),
 * run in a page: how fast this host's Chromium is right now.
 */
export async function measureBenchmarkIndex(page: Page): Promise<number> {
  return page.evaluate(() => {
    const gc = () => {
      const start = Date.now();
      let iterations = 0;
      while (Date.now() - start < 500) {
        let text = '';
        for (let j = 0; j < 10000; j++) text += 'a';
        if (text.length === 1) throw new Error('never');
        iterations++;
      }
      return Math.round(iterations / 10 / ((Date.now() - start) / 1000));
    };
    const noGc = () => {
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < 100000; i++) a[i] = b[i] = i;
      const start = Date.now();
      let iterations = 0;
      while (iterations % 10 !== 0 || Date.now() - start < 500) {
        const source = iterations % 2 === 0 ? a : b;
        const target = iterations % 2 === 0 ? b : a;
        for (let j = 0; j < source.length; j++) target[j] = source[j]!;
        iterations++;
      }
      return Math.round(iterations / 10 / ((Date.now() - start) / 1000));
    };
    return (gc() + noGc()) / 2;
  });
}

/**
 * The CPU slowdown that makes this host emulate the device Lighthouse's default
 * emulates, from Lighthouse's throttling guide ("calibrating multipliers": 2x at
 * a benchmark index of 800, 3x at 1300, 4x at 1533), never more than the default:
 * a fast host gets the default, a slower or busy one proportionally less.
 */
export function cpuSlowdownFor(benchmarkIndex: number): number {
  let multiplier: number;
  if (benchmarkIndex >= 1300) multiplier = 3 + (benchmarkIndex - 1300) / 233;
  else if (benchmarkIndex >= 800) multiplier = 2 + (benchmarkIndex - 800) / 500;
  else if (benchmarkIndex >= 150) multiplier = 1 + (benchmarkIndex - 150) / 650;
  else multiplier = 1;
  return Math.round(Math.min(DEFAULT_CPU_SLOWDOWN, multiplier) * 10) / 10;
}

/**
 * Runs the Lighthouse CLI from node_modules against one URL with Debian's
 * Chromium, and returns its JSON report. A run that Lighthouse itself reports
 * as broken (a runtime error such as a lost trace, never a low score) is
 * repeated, up to `attempts` runs in all.
 */
export async function runLighthouse(address: string, name: string, options: { cpuSlowdown?: number; attempts?: number } = {}): Promise<Report> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const report = await runLighthouseOnce(address, name, options);
      const runtimeError = (report as Report & { runtimeError?: { code: string; message: string } }).runtimeError;
      if (runtimeError) throw new Error(`Lighthouse runtime error ${runtimeError.code}: ${runtimeError.message}`);
      return report;
    } catch (error) {
      if (attempt >= (options.attempts ?? 1)) throw error;
    }
  }
}

function runLighthouseOnce(address: string, name: string, options: { cpuSlowdown?: number }): Promise<Report> {
  fs.mkdirSync(REPORT_DIR, { recursive: true });
  const output = path.join(REPORT_DIR, `${name}.json`);
  const args = [
    path.join(ROOT, 'node_modules/lighthouse/cli/index.js'),
    address,
    '--output=json',
    `--output-path=${output}`,
    `--only-categories=${CATEGORIES.join(',')}`,
    `--chrome-flags=${CHROME_FLAGS.join(' ')}`,
    '--quiet',
    ...(options.cpuSlowdown === undefined ? [] : [`--throttling.cpuSlowdownMultiplier=${options.cpuSlowdown}`]),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, CHROME_PATH: CHROMIUM_PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (chunk) => (log += chunk));
    child.stderr.on('data', (chunk) => (log += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`lighthouse exited ${code} for ${address}\n${log}`));
      resolve(JSON.parse(fs.readFileSync(output, 'utf8')) as Report);
    });
  });
}

/**
 * robots.txt carries the site's terms on purpose: `Content-Signal:` (Cloudflare's Content
 * Signals) and `Content-Usage:` (IETF AIPREF) lines in every group and RSL's `License:` line.
 * RFC 9309 lets a robots.txt hold records beyond its own, but Lighthouse's robots-txt audit
 * calls any such line an "Unknown directive" and fails. Returns the audit's other complaints: none means
 * robots.txt is valid apart from those lines.
 */
export function robotsTxtProblems(report: Report): string[] {
  const audit = report.audits['robots-txt'];
  if (!audit || audit.score === null || audit.score === 1) return [];
  const items = (audit.details?.items ?? []) as { line?: string; message?: string }[];
  if (items.length === 0) return [`robots-txt: ${audit.displayValue ?? audit.title}`];
  return items
    .filter((item) => !(item.message === 'Unknown directive' && /^(?:content-signal|content-usage|license):/i.test(item.line ?? '')))
    .map((item) => `robots.txt: ${item.message} in "${item.line}"`);
}

/** A category's score computed as Lighthouse does (weighted mean of scored audits), leaving some audits out. */
export function scoreWithout(report: Report, category: Category, leftOut: string[]): number {
  let total = 0;
  let weights = 0;
  for (const { id, weight } of report.categories[category].auditRefs) {
    const audit = report.audits[id];
    if (!audit || weight === 0 || leftOut.includes(id) || audit.score === null || !['numeric', 'binary', 'metricSavings'].includes(audit.scoreDisplayMode))
      continue;
    total += audit.score * weight;
    weights += weight;
  }
  return weights === 0 ? 1 : Math.round((total / weights) * 100) / 100;
}

/** The four scores as reported, and as judged: SEO without the robots-txt audit when the terms' lines are all it found. */
export function scoresOf(report: Report): { reported: Scores; judged: Scores; notes: string[] } {
  const reported = Object.fromEntries(CATEGORIES.map((category) => [category, report.categories[category].score ?? 0])) as Scores;
  const judged = { ...reported };
  const notes: string[] = [];
  const robots = report.audits['robots-txt'];
  if (robots && robots.score === 0 && robotsTxtProblems(report).length === 0) {
    judged.seo = scoreWithout(report, 'seo', ['robots-txt']);
    notes.push('robots-txt: only the Content-Signal, Content-Usage and License lines were flagged');
  }
  return { reported, judged, notes };
}

/** Audits that cost points, for the failure message. */
export function lostPoints(report: Report): string[] {
  return CATEGORIES.flatMap((category) =>
    report.categories[category].auditRefs
      .filter(({ weight }) => weight > 0)
      .map(({ id }) => report.audits[id])
      .filter((audit): audit is Audit => Boolean(audit && audit.score !== null && audit.score < 1 && audit.scoreDisplayMode !== 'informative'))
      .map((audit) => `${category}: ${audit.id} ${audit.score}${audit.displayValue ? ` (${audit.displayValue})` : ''}`),
  );
}
