// Where a `next build`'s memory goes: builds generated posts with bench/lib/mem-preload.mjs in
// every Node process (the main process, the TypeScript check, each static-generation worker),
// which records the process's resident memory beside the V8 heap (committed, in use, and what
// is still in use just after each full collection) and Node's external memory. Run once as the
// machine is, and once per --memory-limits entry inside a memory cgroup of that size, as a
// container or a CI runner of that size would run it (V8 sizes its heap from the memory it
// is given).
//   node bench/build-memory.mjs [--posts=10000] [--memory-limits=4096,3072] [--timeout-minutes=45]
import fs from 'node:fs';
import path from 'node:path';
import { generate } from './generate-posts.mjs';
import { cliOptions, log, mkdirp, nextBuild, REPO, saveResult, SITE, snapshotSite, TMP } from './lib/common.mjs';

const options = cliOptions();
const POSTS = Number(options.posts ?? 10_000);
const LIMITS = String(options['memory-limits'] ?? '4096,3072')
  .split(',')
  .filter(Boolean)
  .map(Number);
const TIMEOUT_MINUTES = Number(options['timeout-minutes'] ?? 45);
const DIST = '.next-bench-memory';
const MiB = 2 ** 20;

/** The folder of a new memory cgroup of `mib` MiB under this process's own (cgroup v1 or v2); throws why none can be made. */
function makeCgroup(mib) {
  const lines = fs.readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  const v1 = lines.map((line) => line.split(':')).find(([, controllers]) => controllers.split(',').includes('memory'));
  const v2 = lines.map((line) => line.split(':')).find(([id]) => id === '0');
  const candidates = [];
  if (v1) candidates.push({ dir: path.join('/sys/fs/cgroup/memory', v1[2]), limitFile: 'memory.limit_in_bytes' });
  if (v2) {
    for (const root of ['/sys/fs/cgroup', '/sys/fs/cgroup/unified']) {
      if (fs.existsSync(path.join(root, 'cgroup.controllers')) && fs.readFileSync(path.join(root, 'cgroup.controllers'), 'utf8').includes('memory')) {
        candidates.push({ dir: path.join(root, v2[2]), limitFile: 'memory.max' });
      }
    }
  }
  const errors = [];
  for (const candidate of candidates) {
    const dir = path.join(candidate.dir, `lectern-bench-${process.pid}-${mib}`);
    try {
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, candidate.limitFile), String(mib * MiB));
      return dir;
    } catch (error) {
      errors.push(`${dir}: ${error.code ?? error.message}`);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  throw new Error(
    `no memory cgroup can be made here (root and a writable cgroup memory controller are needed): ${errors.join('; ') || 'no memory controller'}`,
  );
}

function readSamples(dir) {
  const processes = [];
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
    const records = fs
      .readFileSync(path.join(dir, file), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const samples = records.filter((record) => record.rss !== undefined);
    if (samples.length < 2) continue;
    const peak = samples.reduce((top, sample) => (sample.rss > top.rss ? sample : top));
    const afterGc = records.filter((record) => record.majorGc !== undefined).map((record) => record.majorGc);
    processes.push({
      role: file.replace(/-\d+\.jsonl$/, ''),
      heapLimit: records.find((record) => record.heapLimit !== undefined)?.heapLimit,
      peak: { t: peak.t, rss: peak.rss, heapTotal: peak.heapTotal, heapUsed: peak.heapUsed, external: peak.external },
      fullGcs: afterGc.length,
      liveAfterFullGc: afterGc.length ? { first: afterGc[0], max: Math.max(...afterGc), last: afterGc.at(-1) } : undefined,
    });
  }
  return processes.sort((a, b) => b.peak.rss - a.peak.rss);
}

async function buildOnce(contentDir, limitMiB) {
  const samples = path.join(TMP, `build-memory-${limitMiB ?? 'machine'}`);
  fs.rmSync(samples, { recursive: true, force: true });
  mkdirp(samples);
  const cgroup = limitMiB ? makeCgroup(limitMiB) : undefined;
  log(`next build of ${POSTS} posts${limitMiB ? ` in a ${limitMiB} MiB memory cgroup` : ''}, memory of every process sampled`);
  try {
    const result = await nextBuild({
      distDir: DIST,
      contentDir,
      preload: path.join(REPO, 'bench', 'lib', 'mem-preload.mjs'),
      env: { BENCH_MEM_DIR: samples },
      // The shell joins the cgroup, then becomes the build, so every process of the build is inside it.
      prefix: cgroup ? ['sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup] : [],
      timeoutMs: TIMEOUT_MINUTES * 60_000,
    });
    const processes = readSamples(samples);
    log(
      `${result.ok ? 'built' : 'FAILED'} in ${result.wallSeconds.toFixed(0)} s, ${result.cpuSeconds.toFixed(0)} s CPU; peak ${(result.peakTreeRssBytes / MiB).toFixed(0)} MiB, largest process ${(result.peakProcessRssBytes / MiB).toFixed(0)} MiB`,
    );
    for (const p of processes.slice(0, 4)) {
      log(
        `  ${p.role}: peak RSS ${(p.peak.rss / MiB).toFixed(0)} MiB = V8 heap ${(p.peak.heapTotal / MiB).toFixed(0)} (in use ${(p.peak.heapUsed / MiB).toFixed(0)}) + external ${(p.peak.external / MiB).toFixed(0)} + rest; ` +
          `live after full GCs ${p.liveAfterFullGc ? `${(p.liveAfterFullGc.first / MiB).toFixed(0)} → ${(p.liveAfterFullGc.last / MiB).toFixed(0)} (max ${(p.liveAfterFullGc.max / MiB).toFixed(0)})` : '–'} MiB; heap limit ${((p.heapLimit ?? 0) / MiB).toFixed(0)} MiB`,
      );
    }
    return {
      limitMiB: limitMiB ?? null,
      ok: result.ok,
      timedOut: result.timedOut,
      wallSeconds: result.wallSeconds,
      cpuSeconds: result.cpuSeconds,
      peakTreeRssBytes: result.peakTreeRssBytes,
      peakProcessRssBytes: result.peakProcessRssBytes,
      processes,
      tail: result.ok ? undefined : result.lines.slice(-15).map((entry) => entry.line),
    };
  } finally {
    fs.rmSync(path.join(SITE, DIST), { recursive: true, force: true });
    if (cgroup) fs.rmdirSync(cgroup);
  }
}

async function main() {
  snapshotSite();
  const contentDir = path.join(TMP, `content-${POSTS}`);
  generate(contentDir, POSTS);
  const runs = [];
  for (const limit of [undefined, ...LIMITS]) {
    try {
      runs.push(await buildOnce(contentDir, limit));
    } catch (error) {
      // No cgroup here (not root, or no memory controller): keep the runs that could be made.
      if (limit === undefined) throw error;
      log(`skipped the ${limit} MiB run: ${error.message}`);
    }
  }
  saveResult('build-memory', { posts: POSTS, runs });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
