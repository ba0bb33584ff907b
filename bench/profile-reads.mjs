// Where a cached read's CPU goes: runs lectern's server with V8's CPU profiler, loads one
// URL for a fixed time, and sums self time by function and by area (Node's HTTP stack,
// lectern's server code, Next, other). Also measures the bare node:http server the same way.
//   node bench/profile-reads.mjs [--path=/blog/etags-and-conditional-requests] [--duration=8]
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import {
  cliOptions,
  REPO,
  SITE,
  TMP,
  ensureSiteBuilt,
  freePort,
  log,
  mkdirp,
  pinSelf,
  saveResult,
  startLectern,
  startProcess,
  waitForHttp,
} from './lib/common.mjs';

const options = cliOptions();
const DURATION = Number(options.duration ?? 8);
const PATHS = (options.path ?? '/blog/etags-and-conditional-requests,/api/blog').split(',');

function area(frame) {
  const url = frame.url || '';
  if (/\/lib\/server\/|\/server\.ts|\/lib\/http\//.test(url)) return 'lectern server code (server.ts, lib/server, lib/http)';
  if (url.includes('/node_modules/next/')) return 'Next (loaded in the process)';
  if (url.includes('async_hooks') || /^(emitInitScript|emitInitNative|_propagate|executionAsyncResource)$/.test(frame.functionName))
    return 'async context tracking (async_hooks, for AsyncLocalStorage)';
  if (url.includes('/node_modules/')) return 'other packages';
  if (url.startsWith('node:') || (!url && frame.functionName)) return "Node's HTTP/net stack and runtime";
  if (!url) return `V8/native (${frame.functionName || 'anonymous'})`;
  return 'other';
}

/**
 * Self time per function and per area, from a .cpuprofile, counting only samples taken
 * inside [from, to] (µs of CLOCK_MONOTONIC, which V8's profile and process.hrtime share):
 * the measured load, not start-up.
 */
function summarize(profile, from, to) {
  const deltas = new Map();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) continue;
    deltas.set(profile.samples[i], (deltas.get(profile.samples[i]) ?? 0) + delta);
  }
  const byFunction = new Map();
  const byArea = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const micros = deltas.get(node.id) ?? 0;
    if (!micros) continue;
    const frame = node.callFrame;
    if (frame.functionName === '(idle)') continue;
    total += micros;
    const where = frame.url ? `${frame.url.replace(/^file:\/\//, '').replace(SITE, '.')}:${frame.lineNumber + 1}` : frame.functionName;
    const key = `${frame.functionName || '(anonymous)'} ${where}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
    const group =
      frame.functionName === '(garbage collector)' ? 'garbage collection' : frame.functionName === '(program)' ? 'V8/native (program)' : area(frame);
    byArea.set(group, (byArea.get(group) ?? 0) + micros);
  }
  // Inclusive shares: samples with lectern's code anywhere on the stack (with the Node calls it
  // makes, such as setHeader), and those inside esbuild's __name helper.
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const isLectern = (frame) => /\/lib\/|\/server\.ts/.test(frame.url || '') && !(frame.url || '').includes('/node_modules/');
  const inclusive = { lecternCode: 0, naming: 0 };
  /** Per function of lectern's code: samples with it anywhere on the stack (what it costs, callees included). */
  const lecternInclusive = new Map();
  for (const [id, micros] of deltas) {
    const frame = byId.get(id)?.callFrame;
    if (!frame || frame.functionName === '(idle)') continue;
    let lectern = false;
    let naming = false;
    const counted = new Set();
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const f = byId.get(at).callFrame;
      if (isLectern(f)) {
        lectern = true;
        const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^file:\/\//, '').replace(SITE, '.')}`;
        if (!counted.has(key)) {
          counted.add(key);
          lecternInclusive.set(key, (lecternInclusive.get(key) ?? 0) + micros);
        }
      }
      if (f.functionName === '__name') naming = true;
    }
    if (lectern) inclusive.lecternCode += micros;
    if (naming) inclusive.naming += micros;
  }
  const top = (map, n) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, micros]) => ({ name, share: micros / total, ms: micros / 1000 }));
  return {
    busyMs: total / 1000,
    inclusive: { lecternCode: inclusive.lecternCode / total, naming: inclusive.naming / total },
    areas: top(byArea, 12),
    lecternInclusive: top(lecternInclusive, 15),
    functions: top(byFunction, 25),
  };
}

async function profileServer(name, start, url) {
  const dir = mkdirp(path.join(TMP, 'profiles', name));
  for (const file of fs.readdirSync(dir)) fs.rmSync(path.join(dir, file));
  const server = await start(dir);
  try {
    for (let i = 0; i < 3; i += 1) await fetch(`${server.baseUrl}${url}`).then((response) => response.arrayBuffer());
    await autocannon({ url: `${server.baseUrl}${url}`, connections: 50, duration: 2, headers: {} });
    const from = Number(process.hrtime.bigint() / 1000n);
    const result = await autocannon({ url: `${server.baseUrl}${url}`, connections: 50, duration: DURATION, headers: {} });
    const to = Number(process.hrtime.bigint() / 1000n);
    await server.stop();
    const file = fs.readdirSync(dir).find((entry) => entry.endsWith('.cpuprofile'));
    if (!file) throw new Error(`${name}: no CPU profile written`);
    const summary = summarize(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), from, to);
    return { server: name, path: url, requests: result.requests.total, usPerRequest: (summary.busyMs * 1000) / result.requests.total, ...summary };
  } finally {
    await server.stop();
  }
}

async function main() {
  pinSelf(1);
  const { distDir } = await ensureSiteBuilt();
  const manifest = path.join(TMP, 'reads', 'manifest.json');
  if (!fs.existsSync(manifest)) throw new Error('run `npm run bench -- reads` first: the profile reuses its captured bytes');
  const profiles = [];
  for (const url of PATHS) {
    profiles.push(await profileServer('lectern', (dir) => startLectern({ distDir, cpu: 0, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] }), url));
    for (const [name, extra] of [
      ['node', []],
      ['node-next', [`--with-next=${SITE}`]],
    ]) {
      profiles.push(
        await profileServer(
          name,
          async (dir) => {
            const port = await freePort();
            const proc = startProcess(
              `${name}-profiled`,
              process.execPath,
              ['--cpu-prof', `--cpu-prof-dir=${dir}`, path.join(REPO, 'bench', 'bare-server.mjs'), manifest, String(port), ...extra],
              {
                cpu: 0,
                cwd: SITE,
                env: { NEXT_DIST_DIR: distDir, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
              },
            );
            const baseUrl = `http://127.0.0.1:${port}`;
            // With Next: one page through it first, as lectern's warm-up does.
            await waitForHttp(`${baseUrl}${extra.length ? '/robots.txt' : url}`, { process: proc, timeoutMs: 120_000 });
            return { ...proc, baseUrl };
          },
          url,
        ),
      );
    }
  }
  for (const profile of profiles) {
    log(
      `${profile.server} ${profile.path}: ${profile.requests} requests; lectern's code on the stack ${(profile.inclusive.lecternCode * 100).toFixed(1)} %, __name ${(profile.inclusive.naming * 100).toFixed(1)} %`,
    );
    for (const entry of profile.areas) log(`   ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`);
    for (const entry of profile.functions.slice(0, 15)) log(`      ${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.name}`);
  }
  saveResult('profile', { durationSeconds: DURATION, profiles });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
