// Shared helpers for lectern's benchmarks: paths, processes, ports, /proc accounting, results.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const REPO = path.resolve(import.meta.dirname, '..', '..');
/** Results (JSON), generated configs and logs: small, ignored by git (bench/.gitignore). */
export const WORK = path.join(REPO, 'bench', '.work');
export const RESULTS = path.join(WORK, 'results');
/** Heavy generated things (site snapshot, builds, generated posts) live outside the repository. */
export const TMP = process.env.BENCH_TMP || path.join(os.tmpdir(), 'lectern-bench');
/** The site is built and served from a copy of the working tree, so no build touches the repository's files. */
export const SITE = path.join(TMP, 'site');
export const SITE_URL = 'http://localhost:3000';
/** Pin servers to one core and the load generator to the other, when the machine has two or more. */
export const PIN = process.env.BENCH_PIN !== '0' && os.cpus().length >= 2;
export const CLK_TCK = 100;

/** BENCH_NICE (e.g. -10, as root): the niceness of the measuring process and all it starts. */
export const NICE = process.env.BENCH_NICE ? Number(process.env.BENCH_NICE) : undefined;

/** PATH without the node_modules/.bin folders npm puts first when it runs a script. */
export function pathOutsideProjects(value = process.env.PATH ?? '') {
  return value
    .split(path.delimiter)
    .filter((dir) => dir && !/(^|[\\/])node_modules[\\/]\.bin[\\/]?$/.test(dir))
    .join(path.delimiter);
}

/** The first `node` on PATH outside any node_modules/.bin: the machine's own Node.js. */
export function machineNode() {
  for (const dir of pathOutsideProjects().split(path.delimiter)) {
    const file = path.join(dir, 'node');
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not in this folder
    }
  }
  throw new Error('no node on PATH outside node_modules/.bin');
}

/**
 * The Node.js a copy of the project runs on, as npm would run its scripts: a project whose
 * package.json depends on the `node` package runs on its own node_modules/.bin/node, any
 * other on the machine's Node (the first `node` on PATH outside node_modules/.bin).
 */
export function runtimeOf(site) {
  const manifest = readJson(path.join(site, 'package.json')) ?? {};
  if ({ ...manifest.devDependencies, ...manifest.dependencies }.node === undefined) return machineNode();
  const own = path.join(site, 'node_modules', '.bin', 'node');
  if (!fs.existsSync(own)) throw new Error(`${site} depends on node but has no node_modules/.bin/node: run npm install there`);
  return own;
}

const versions = new Map();
/** `node --version` of a runtime (e.g. v24.21.0). */
export function runtimeVersion(node) {
  if (!versions.has(node)) versions.set(node, execFileSync(node, ['--version'], { encoding: 'utf8' }).trim());
  return versions.get(node);
}

/** The environment a runtime's processes get: its folder first on PATH, no project's node_modules/.bin. */
export function runtimeEnv(node) {
  return { PATH: [path.dirname(node), pathOutsideProjects()].join(path.delimiter) };
}

/**
 * Moves this process to one CPU (the load generator's), when pinning is on, and sets its
 * niceness when BENCH_NICE asks: servers and load generators started later inherit it.
 */
export function pinSelf(cpu = 1) {
  if (NICE !== undefined && Number.isInteger(NICE)) {
    try {
      os.setPriority(NICE);
    } catch (error) {
      log(`BENCH_NICE=${NICE} not applied: ${error.message}`);
    }
  }
  if (!PIN) return;
  try {
    execFileSync('taskset', ['-cp', String(cpu), String(process.pid)], { stdio: 'ignore' });
  } catch {
    // No taskset: the runs are simply not pinned.
  }
}

/** `--name=value` (or `--flag`, meaning `'true'`) arguments of this process, by name. */
export function cliOptions(argv = process.argv.slice(2)) {
  return Object.fromEntries(
    argv
      .filter((arg) => arg.startsWith('--'))
      .map((arg) => {
        const [key, value = 'true'] = arg.slice(2).split('=');
        return [key, value];
      }),
  );
}

export function log(...args) {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...args);
}

export function mkdirp(dir) {
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export function writeJson(file, data) {
  mkdirp(path.dirname(file));
  fs.writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
}

export function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

export function saveResult(part, data) {
  const file = path.join(RESULTS, `${part}.json`);
  writeJson(file, { part, finishedAt: new Date().toISOString(), machine: machine(), ...data });
  log(`wrote ${path.relative(REPO, file)}`);
}

/** stdout and stderr of a short command (nginx -v prints to stderr), or undefined. */
function run(command, args) {
  const result = spawnSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.error) return undefined;
  return `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() || undefined;
}

/** Microseconds some task has waited for a CPU since boot (Linux PSI), or undefined. */
export function cpuPressureTotal() {
  try {
    return Number(/^some .*total=(\d+)/m.exec(fs.readFileSync('/proc/pressure/cpu', 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
}

export function machine() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model;
  const mhz = /^cpu MHz\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim();
  const firstLine = (text) => text?.split('\n')[0];
  return {
    cpu: model,
    cpuMHz: mhz ? Number(mhz) : undefined,
    // Every core of the machine, whatever this process is pinned to.
    cores: os.cpus().length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    nginx: firstLine(run('nginx', ['-v']))?.replace(/^nginx version: /, ''),
    hugo: firstLine(run('hugo', ['version']))?.split(' ')[1],
    redis: /v=(\S+)/.exec(run('redis-server', ['--version']) ?? '')?.[1],
    autocannon: readJson(path.join(REPO, 'node_modules', 'autocannon', 'package.json'))?.version,
    next: readJson(path.join(REPO, 'node_modules', 'next', 'package.json'))?.version,
    commit: run('git', ['-C', REPO, 'describe', '--always', '--dirty', '--abbrev=10']),
    loadAverage: os.loadavg().map((value) => Math.round(value * 100) / 100),
    nice: os.getPriority(),
  };
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns a long-running process, its output to a log file; pinned to `cpu` when pinning is on. */
export function startProcess(name, command, args, { cwd = REPO, env = {}, cpu } = {}) {
  const logFile = path.join(mkdirp(path.join(WORK, 'logs')), `${name}.log`);
  const out = fs.openSync(logFile, 'w');
  const [cmd, argv] = PIN && cpu !== undefined ? ['taskset', ['-c', String(cpu), command, ...args]] : [command, args];
  const child = spawn(cmd, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', (code, signal) => ((exited = true), resolve({ code, signal }))));
  return {
    name,
    pid: child.pid,
    logFile,
    exit,
    get exited() {
      return exited;
    },
    async stop(signal = 'SIGTERM') {
      if (exited) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
}

export async function waitForHttp(url, { timeoutMs = 60_000, process: proc } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    if (proc?.exited) throw new Error(`${proc.name} exited before answering; see ${proc.logFile}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      await response.arrayBuffer();
      return response;
    } catch (error) {
      last = error;
      await sleep(200);
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms: ${last?.message}`);
}

/** pid → { ppid, cpuTicks, rssBytes } for every process, from /proc. */
export function processTable() {
  const table = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15, rss 24 (pages).
      table.set(Number(entry), {
        ppid: Number(fields[1]),
        cpuTicks: Number(fields[11]) + Number(fields[12]),
        rssBytes: Number(fields[21]) * 4096,
      });
    } catch {
      // The process ended while we looked.
    }
  }
  return table;
}

export function descendants(table, root) {
  const found = [root];
  for (let i = 0; i < found.length; i += 1) {
    for (const [pid, info] of table) if (info.ppid === found[i]) found.push(pid);
  }
  return found.filter((pid) => table.has(pid));
}

/** CPU seconds (user + system) used so far by a process and its living descendants. */
export function treeCpuSeconds(root) {
  const table = processTable();
  return descendants(table, root).reduce((sum, pid) => sum + table.get(pid).cpuTicks, 0) / CLK_TCK;
}

/**
 * Runs a command to completion and measures it: wall time, CPU time of the whole
 * tree (from wait4 via /usr/bin/time when present), peak RSS summed over the process
 * tree and of the largest process (sampled from /proc), and each output line with the
 * second it arrived at.
 */
export async function measureCommand(command, args, { cwd, env = {}, timeoutMs, sampleMs = 250, onLine } = {}) {
  const timeFile = path.join(TMP, `time-${process.pid}.txt`);
  const useTime = fs.existsSync('/usr/bin/time');
  const [cmd, argv] = useTime ? ['/usr/bin/time', ['-f', '%e %U %S %M', '-o', timeFile, command, ...args]] : [command, args];
  const started = performance.now();
  const pressureBefore = cpuPressureTotal();
  const child = spawn(cmd, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let peakTree = 0;
  let peakSingle = 0;
  let lastTreeCpu = 0;
  const collect = (stream) => {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      rest += chunk;
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      for (const line of parts) {
        const entry = { t: (performance.now() - started) / 1000, line };
        lines.push(entry);
        onLine?.(entry);
      }
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  // CPU ticks of every process of the tree, as last seen: workers that end before the
  // build are counted too (wait4 misses those nobody waited for).
  const ticksByPid = new Map();
  const sampler = setInterval(() => {
    const table = processTable();
    const pids = descendants(table, child.pid);
    let sum = 0;
    for (const pid of pids) {
      const info = table.get(pid);
      sum += info.rssBytes;
      ticksByPid.set(pid, Math.max(ticksByPid.get(pid) ?? 0, info.cpuTicks));
      if (info.rssBytes > peakSingle) peakSingle = info.rssBytes;
    }
    if (sum > peakTree) peakTree = sum;
    let ticks = 0;
    for (const value of ticksByPid.values()) ticks += value;
    lastTreeCpu = ticks / CLK_TCK;
  }, sampleMs);
  let timedOut = false;
  const timer = timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        // Stop the whole tree: the build's workers are children of the build.
        const table = processTable();
        for (const pid of descendants(table, child.pid).reverse()) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }, timeoutMs)
    : undefined;
  const { code, signal } = await new Promise((resolve) => child.once('close', (c, s) => resolve({ code: c, signal: s })));
  clearInterval(sampler);
  clearTimeout(timer);
  const wallSeconds = (performance.now() - started) / 1000;
  const pressureAfter = cpuPressureTotal();
  // Share of the time some task on the machine waited for a CPU (this build's own processes included).
  const cpuPressure = pressureBefore !== undefined && pressureAfter !== undefined ? ((pressureAfter - pressureBefore) / (wallSeconds * 1e6)) * 100 : undefined;
  let cpuSeconds = lastTreeCpu;
  let maxRssBytesWait4;
  if (useTime && fs.existsSync(timeFile)) {
    const parts = fs.readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    if (parts.length === 4 && parts.every(Number.isFinite)) {
      // The larger of the two: wait4 has what the sampler missed between samples, the sampler
      // has what wait4 misses (children that were never waited for).
      cpuSeconds = Math.max(lastTreeCpu, parts[1] + parts[2]);
      maxRssBytesWait4 = parts[3] * 1024;
    }
    fs.rmSync(timeFile, { force: true });
  }
  return {
    ok: code === 0 && !timedOut,
    cpuPressure,
    code,
    signal,
    timedOut,
    wallSeconds,
    cpuSeconds,
    peakTreeRssBytes: peakTree,
    peakProcessRssBytes: Math.max(peakSingle, maxRssBytesWait4 ?? 0),
    lines,
  };
}

/** Hash of the working tree's source files (tracked and untracked, not ignored), bench/ excepted. */
export function sourceFiles() {
  const listed = execFileSync('git', ['-C', REPO, 'ls-files', '-co', '--exclude-standard', '-z'], { encoding: 'utf8' });
  return listed
    .split('\0')
    .filter((file) => file && !file.startsWith('bench/') && fs.existsSync(path.join(REPO, file)))
    .sort();
}

/**
 * Copies the working tree to SITE (node_modules as hard links, so it costs no
 * space), unless the copy already holds the same files. Returns true if it changed.
 */
export function snapshotSite() {
  const stamp = path.join(SITE, '.bench-source');
  // BENCH_REUSE_SITE=1: measure the copy made by an earlier run, whatever changed since.
  if (process.env.BENCH_REUSE_SITE === '1' && fs.existsSync(stamp)) return { digest: fs.readFileSync(stamp, 'utf8'), changed: false };
  const files = sourceFiles();
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(fs.readFileSync(path.join(REPO, file)))
      .update('\0');
  const digest = hash.digest('hex');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === digest && fs.existsSync(path.join(SITE, 'node_modules'))) return { digest, changed: false };
  log(`copying the working tree (${files.length} files) to ${SITE}`);
  for (const entry of fs.existsSync(SITE) ? fs.readdirSync(SITE) : []) {
    if (entry === 'node_modules' || entry.startsWith('.next-bench')) continue;
    fs.rmSync(path.join(SITE, entry), { recursive: true, force: true });
  }
  mkdirp(SITE);
  for (const file of files) {
    mkdirp(path.dirname(path.join(SITE, file)));
    fs.copyFileSync(path.join(REPO, file), path.join(SITE, file));
  }
  // Turbopack refuses a node_modules symlink that leaves the project; hard links are plain files to it.
  fs.rmSync(path.join(SITE, 'node_modules'), { recursive: true, force: true });
  try {
    execFileSync('cp', ['-al', path.join(REPO, 'node_modules'), path.join(SITE, 'node_modules')]);
  } catch {
    execFileSync('cp', ['-a', path.join(REPO, 'node_modules'), path.join(SITE, 'node_modules')]);
  }
  fs.writeFileSync(stamp, digest);
  return { digest, changed: true };
}

export const NEXT_BIN = path.join('node_modules', 'next', 'dist', 'bin', 'next');

/**
 * Builds a content folder with `next build` in the snapshot; measured. `preload` is a module
 * loaded into every Node process of the build (NODE_OPTIONS=--import), `env` is added to the
 * build's environment, and `prefix` is a command the build runs under (it ends with `exec "$@"`).
 */
export async function nextBuild({
  distDir,
  contentDir,
  siteUrl = SITE_URL,
  timeoutMs,
  onLine,
  preload,
  env = {},
  prefix = [],
  keepCache = false,
  site = SITE,
  node = runtimeOf(site),
}) {
  // keepCache: a rebuild as a CI that keeps `.next/cache` runs it (Next empties the rest itself).
  if (!keepCache) fs.rmSync(path.join(site, distDir), { recursive: true, force: true });
  const [command, ...args] = [...prefix, node, NEXT_BIN, 'build'];
  return measureCommand(command, args, {
    cwd: site,
    env: {
      ...runtimeEnv(node),
      NEXT_DIST_DIR: distDir,
      CONTENT_DIR: contentDir,
      SITE_URL: siteUrl,
      NEXT_TELEMETRY_DISABLED: '1',
      NODE_ENV: 'production',
      ...(preload ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${pathToFileURL(preload).href}`.trim() } : {}),
      ...env,
    },
    timeoutMs,
    onLine,
  });
}

/**
 * The site for reads and page weight: the real content/, built once per change of the source.
 * `snapshot` is another copy to build instead (snapshotRef's, for a before/after comparison).
 */
export async function ensureSiteBuilt(snapshot) {
  const { site, digest: source } = snapshot ?? { site: SITE, digest: snapshotSite().digest };
  // A build is kept for the same source built by the same Node.js.
  const digest = `${source} ${runtimeVersion(runtimeOf(site))}`;
  const distDir = '.next-bench';
  const stamp = path.join(site, distDir, '.bench-source');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === digest) return { distDir, built: false };
  log(`building content/ with next build (into ${site}, NEXT_DIST_DIR=.next-bench)`);
  const result = await nextBuild({ distDir, contentDir: 'content', timeoutMs: 30 * 60_000, site });
  if (!result.ok) {
    console.error(
      result.lines
        .slice(-40)
        .map((entry) => entry.line)
        .join('\n'),
    );
    throw new Error('next build of content/ failed');
  }
  fs.writeFileSync(stamp, digest);
  log(`built in ${result.wallSeconds.toFixed(1)} s`);
  return { distDir, built: true };
}

/**
 * A copy of the project as it was at a commit (`git archive`), for measuring before and after a
 * change in one run: its own folder under TMP, with a copy of node_modules brought to that
 * commit's lockfile by `npm install`, install scripts included, so its native modules are built
 * for the runtime it runs on (runtimeOf: its own `node` package, or the machine's Node). npm runs
 * on the machine's Node with no project's node_modules/.bin on PATH, as on a machine with only
 * that Node. Made once per commit. Returns the folder, the commit and the runtime.
 */
export function snapshotRef(ref) {
  const sha = execFileSync('git', ['-C', REPO, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
  const site = path.join(TMP, `site-${sha.slice(0, 12)}`);
  const stamp = path.join(site, '.bench-source');
  // The stamp names how the copy was installed: copies made without install scripts are made again.
  const made = `${sha} installed with scripts`;
  if (!(fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === made)) {
    log(`copying the project at ${sha.slice(0, 7)} to ${site}`);
    fs.rmSync(site, { recursive: true, force: true });
    mkdirp(site);
    execFileSync('sh', ['-c', `git -C "${REPO}" archive ${sha} | tar -x -C "${site}"`]);
    execFileSync('cp', ['-a', path.join(REPO, 'node_modules'), path.join(site, 'node_modules')]);
    log(`installing ${sha.slice(0, 7)}'s dependencies (npm on the machine's Node, install scripts run)`);
    // npm's own variables of the `npm run bench` this runs under stay out: the copy's npm reads its own settings.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
    const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], {
      cwd: site,
      env: { ...env, ...runtimeEnv(machineNode()) },
      encoding: 'utf8',
    });
    if (result.status !== 0) throw new Error(`npm install at ${sha.slice(0, 7)} failed:\n${`${result.stdout}${result.stderr}`.slice(-4000)}`);
    fs.writeFileSync(stamp, made);
  }
  const node = runtimeOf(site);
  return { site, sha, digest: sha, short: sha.slice(0, 7), node, nodeVersion: runtimeVersion(node) };
}

/**
 * The arguments after `node` and the environment that the site's own `npm start` gives its server
 * (`exec [env NAME=value …] node FLAGS server.ts`): each copy measured is started as it starts
 * itself, flags, environment and all.
 */
function startCommand(site) {
  const start = JSON.parse(fs.readFileSync(path.join(site, 'package.json'), 'utf8')).scripts.start;
  const words = start.replace(/^exec\s+/, '').split(/\s+/);
  // `env NAME=value … node …`: the environment the site's npm start gives its server.
  const env = {};
  if (words[0] === 'env') {
    words.shift();
    while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? '')) {
      const word = words.shift();
      env[word.slice(0, word.indexOf('='))] = word.slice(word.indexOf('=') + 1);
    }
  }
  if (words[0] !== 'node' || words.at(-1) !== 'server.ts') throw new Error(`${site}: npm start is not \`node … server.ts\`: ${start}`);
  return { args: words.slice(1), env };
}

/** Extra Node.js flags for every lectern server the bench starts (BENCH_SERVER_NODE_ARGS, space-separated), e.g. `--trace-gc`. */
function serverNodeArgs() {
  return (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
}

/** Starts lectern's server (server.ts, as the site's `npm start` runs it) on a loopback port. */
export async function startLectern({
  distDir = '.next-bench',
  cpu = 0,
  env = {},
  nodeArgs = serverNodeArgs(),
  site = SITE,
  name = 'lectern',
  node = runtimeOf(site),
} = {}) {
  const port = await freePort();
  const start = startCommand(site);
  const proc = startProcess(name, node, [...nodeArgs, ...start.args], {
    cwd: site,
    cpu,
    env: {
      ...runtimeEnv(node),
      ...start.env,
      PORT: String(port),
      HOSTNAME: '127.0.0.1',
      NEXT_DIST_DIR: distDir,
      SITE_URL,
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      ...env,
    },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${baseUrl}/robots.txt`, { process: proc, timeoutMs: 120_000 });
  return { ...proc, baseUrl, port };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Percentile of a sorted numeric array (nearest rank). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return undefined;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export { sleep };
