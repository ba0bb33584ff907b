// How much of a post page's build time is lectern's markdown pipeline: renderMarkdown
// (lib/content/render.ts: remark, sanitize, slugs, shiki, image sizes) timed per post,
// in one process, over generated posts. lib/content/render.ts of the site copy is bundled
// with esbuild (the compiler tsx is built on), packages left external as in Next's server
// build (shiki is one of Next's server-external packages), and imported by plain Node.
//
// Two variants, each in a fresh process (shiki keeps one highlighter per process):
//   as is        lib/content/render.ts unchanged
//   langs: []    the same with `langs: []` added to the @shikijs/rehype options, so the
//                highlighter loads the languages posts use (lazy) instead of every bundled one
//   node bench/render.mjs [--posts=300]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { makePost, prng } from './generate-posts.mjs';
import { SITE, log, percentile, pinSelf, saveResult, snapshotSite } from './lib/common.mjs';

const POSTS = Number(process.argv.find((arg) => arg.startsWith('--posts='))?.slice(8) ?? 300);
const VARIANT = process.argv.find((arg) => arg.startsWith('--variant='))?.slice(10);
const WARMUP = 20;
const VARIANTS = {
  'as is': (source) => source,
  'langs: []': (source) => (/lazy: true,/.test(source) ? source.replace(/lazy: true,/, 'lazy: true,\n        langs: [],') : undefined),
};

/** Bundles render.ts (changed by the variant) inside the site copy, so it finds node_modules. */
async function bundle(variant) {
  const file = path.join(SITE, 'lib', 'content', 'render.ts');
  const source = VARIANTS[variant](fs.readFileSync(file, 'utf8'));
  if (source === undefined) return undefined;
  const out = path.join(SITE, `.bench-render-${variant.replace(/\W+/g, '-')}.mjs`);
  await build({
    entryPoints: [file],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: out,
    logLevel: 'error',
    plugins: [
      {
        name: 'variant',
        setup: (b) => b.onLoad({ filter: /lib[\\/]content[\\/]render\.ts$/ }, () => ({ contents: source, loader: 'ts', resolveDir: path.dirname(file) })),
      },
    ],
  });
  return out;
}

async function measure(file) {
  const { renderMarkdown } = await import(pathToFileURL(file).href);
  const random = prng(7);
  const bodies = Array.from({ length: POSTS + WARMUP }, (_, i) => makePost(i, POSTS + WARMUP, random).source.replace(/^---\n[\s\S]*?\n---\n/, ''));
  const cpuFirst = process.cpuUsage();
  const first = performance.now();
  await renderMarkdown(bodies[0]);
  const firstMs = performance.now() - first;
  const firstCpuMs = ((c) => (c.user + c.system) / 1000)(process.cpuUsage(cpuFirst));
  // The rest of the warm-up meets the remaining code languages once.
  for (const body of bodies.slice(1, WARMUP)) await renderMarkdown(body);
  const samples = new Float64Array(POSTS);
  // Memory the pipeline keeps per post (renderMarkdown memoizes every result for the life of the process).
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const cpuBefore = process.cpuUsage();
  const measuredFrom = performance.now();
  for (let i = 0; i < POSTS; i += 1) {
    const t = performance.now();
    await renderMarkdown(bodies[WARMUP + i]);
    samples[i] = performance.now() - t;
  }
  const wall = performance.now() - measuredFrom;
  const cpu = process.cpuUsage(cpuBefore);
  globalThis.gc?.();
  const retainedBytesPerPost = (process.memoryUsage().heapUsed - heapBefore) / POSTS;
  const sorted = samples.sort();
  return {
    retainedBytesPerPost,
    posts: POSTS,
    firstCallMs: firstMs,
    firstCallCpuMs: firstCpuMs,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: wall / POSTS,
    cpuMsPerPost: (cpu.user + cpu.system) / 1000 / POSTS,
  };
}

async function main() {
  if (VARIANT) {
    // Child: one variant, result on stdout.
    process.stdout.write(JSON.stringify(await measure(VARIANT)));
    return;
  }
  pinSelf(1);
  snapshotSite();
  const variants = [];
  for (const name of Object.keys(VARIANTS)) {
    const file = await bundle(name);
    if (!file) {
      log(`render variant "${name}" skipped: lib/content/render.ts no longer has the line it changes`);
      continue;
    }
    const out = execFileSync(process.execPath, ['--expose-gc', import.meta.filename, `--variant=${file}`, `--posts=${POSTS}`], {
      cwd: process.cwd(),
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    const result = { name, ...JSON.parse(out) };
    variants.push(result);
    log(
      `renderMarkdown (${name}): first call ${result.firstCallMs.toFixed(0)} ms (${result.firstCallCpuMs.toFixed(0)} ms CPU), then p50 ${result.p50Ms.toFixed(1)} ms, ${result.cpuMsPerPost.toFixed(1)} ms CPU per post, ${(result.retainedBytesPerPost / 1024).toFixed(0)} KiB kept per post`,
    );
    fs.rmSync(file, { force: true });
  }
  saveResult('render', { posts: POSTS, variants });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
