// Readers first under load: a cached read's latency (GET /blog, answered from memory) measured by a
// process of its own, idle and while (a) 64 MCP clients, each on a loopback address of its own
// (127.0.0.2 …), cycle search_posts (10 words, limit 50), list_posts, fetch and tools/list, and
// (b) 300 connections loop the worst accepted /api/search query. Each phase lasts --duration
// seconds (default 20) and stops by itself; load stays on loopback. The server runs unpinned (its
// search thread is where the MCP calls and searches go; pinned to one CPU it would share that CPU
// with the thread that answers reads), as `npm start` runs it.
//   node --import tsx bench/load.mjs [--duration=20] [--idle=10] [--mcp-clients=64] [--search-connections=300]
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { cliOptions, cpuPressureTotal, ensureSiteBuilt, log, percentile, saveResult, sleep, startLectern } from './lib/common.mjs';

const options = cliOptions();
const DURATION = Number(options.duration ?? 20);
const IDLE = Number(options.idle ?? 10);
const MCP_CLIENTS = Number(options['mcp-clients'] ?? 64);
const SEARCH_CONNECTIONS = Number(options['search-connections'] ?? 300);
const READ = '/blog';
/** A reader's pace: one request, then this long before the next. */
const SAMPLE_GAP_MS = 5;
const GOAL_RATIO = 2;

/** Ten words the posts use (each searched; 50 results asked). */
const TEN_WORDS = 'http cache request response server browser content header client page';
/**
 * The worst query /api/search accepts (as bench/search.mjs finds them): ten common words, each
 * mistyped (so each stands for its neighbours one typo away) and the last unfinished (a prefix),
 * repeated up to the 200 characters a query may hold.
 */
const WORST = (() => {
  const words = ['reqest', 'respons', 'cahce', 'servr', 'headr', 'clent', 'browsr', 'contnt', 'pge', 'th'];
  let query = words.join(' ');
  while (query.length + 1 + words.join(' ').length <= 200) query += ` ${words.join(' ')}`;
  return query;
})();

// --- The sampler: a process of its own, so the load's own event loop does not delay what it times.
if (process.argv.includes('--sampler')) {
  const [base] = process.argv.slice(process.argv.indexOf('--sampler') + 1);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  let running = true;
  process.on('message', (message) => {
    if (message === 'stop') running = false;
  });
  const get = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      http
        .get(`${base}${READ}`, { agent, headers: { accept: 'text/html', 'accept-encoding': 'br' } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
        })
        .on('error', reject);
    });
  while (running) {
    const { status, ms } = await get();
    if (status === 200) samples.push(ms);
    await sleep(SAMPLE_GAP_MS);
  }
  process.send(samples);
  agent.destroy();
  process.exit(0);
}

/** Latencies of the cached read while `load` runs for `seconds`: p50, p99, max, and the load's own counts. */
async function measure(baseUrl, seconds, load) {
  const sampler = fork(new URL(import.meta.url).pathname, ['--sampler', baseUrl], { execArgv: [] });
  const samples = new Promise((resolve) => sampler.once('message', resolve));
  const pressureBefore = cpuPressureTotal();
  const loadBefore = os.loadavg()[0];
  const deadline = Date.now() + seconds * 1000;
  const counts = await Promise.all([load ? load(deadline) : sleep(seconds * 1000).then(() => undefined)]);
  sampler.send('stop');
  const sorted = (await samples).sort((a, b) => a - b);
  const pressureAfter = cpuPressureTotal();
  return {
    reads: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1),
    load: counts[0],
    cpuPressure: pressureBefore !== undefined && pressureAfter !== undefined ? ((pressureAfter - pressureBefore) / (seconds * 1e6)) * 100 : undefined,
    loadAverage: [loadBefore, os.loadavg()[0]],
  };
}

/** Sends requests until the deadline on `loops` loops; counts statuses and answer times. */
async function loop(loops, deadline, send) {
  const statuses = {};
  const times = [];
  await Promise.all(
    Array.from({ length: loops }, async (_, index) => {
      for (let call = 0; Date.now() < deadline; call += 1) {
        const started = performance.now();
        const status = await send(index, call).catch(() => 'error');
        times.push(performance.now() - started);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  times.sort((a, b) => a - b);
  return { requests: times.length, statuses, p50: percentile(times, 50), p99: percentile(times, 99) };
}

function request(baseUrl, { method = 'GET', path, agent, body, headers = {} }) {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${path}`, { method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The MCP flood: each client on its own loopback address, cycling four calls. */
function mcpFlood(baseUrl, slug) {
  const calls = [
    { method: 'tools/call', params: { name: 'search_posts', arguments: { query: TEN_WORDS, limit: 50 } } },
    { method: 'tools/call', params: { name: 'list_posts', arguments: { limit: 10 } } },
    { method: 'tools/call', params: { name: 'fetch', arguments: { id: slug } } },
    { method: 'tools/list', params: {} },
  ];
  const agents = Array.from({ length: MCP_CLIENTS }, (_, index) => new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: `127.0.0.${index + 2}` }));
  return async (deadline) => {
    const result = await loop(MCP_CLIENTS, deadline, (client, call) =>
      request(baseUrl, {
        method: 'POST',
        path: '/mcp',
        agent: agents[client],
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: call, ...calls[call % calls.length] }),
      }),
    );
    for (const agent of agents) agent.destroy();
    return result;
  };
}

function searchFlood(baseUrl) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: SEARCH_CONNECTIONS });
  const path = `/api/search?q=${encodeURIComponent(WORST)}`;
  return async (deadline) => {
    const result = await loop(SEARCH_CONNECTIONS, deadline, () => request(baseUrl, { path, agent }));
    agent.destroy();
    return result;
  };
}

async function main() {
  const { distDir } = await ensureSiteBuilt();
  log('starting lectern (unpinned)');
  const server = await startLectern({ distDir, cpu: undefined });
  process.on('SIGINT', () => server.stop().then(() => process.exit(130)));
  try {
    const worstStatus = await request(server.baseUrl, { path: `/api/search?q=${encodeURIComponent(WORST)}` });
    if (worstStatus !== 200) throw new Error(`the worst query answered ${worstStatus}`);
    const list = await fetch(`${server.baseUrl}/api/blog?limit=1`).then((response) => response.json());
    const slug = list.posts[0].slug;
    for (let i = 0; i < 200; i += 1) await request(server.baseUrl, { path: READ });
    const phases = {};
    log(`idle: ${READ} for ${IDLE} s`);
    phases.idle = await measure(server.baseUrl, IDLE);
    log(`MCP flood: ${MCP_CLIENTS} clients on their own addresses for ${DURATION} s`);
    phases.mcp = await measure(server.baseUrl, DURATION, mcpFlood(server.baseUrl, slug));
    await sleep(3000);
    log(`search flood: ${SEARCH_CONNECTIONS} connections on the worst query for ${DURATION} s`);
    phases.search = await measure(server.baseUrl, DURATION, searchFlood(server.baseUrl));
    for (const [name, phase] of Object.entries(phases)) {
      log(
        `${name.padEnd(6)} ${READ} p50 ${phase.p50.toFixed(2)} ms p99 ${phase.p99.toFixed(2)} ms max ${phase.max.toFixed(1)} ms over ${phase.reads} reads` +
          (phase.load
            ? `; load ${phase.load.requests} requests ${JSON.stringify(phase.load.statuses)}, p50 ${phase.load.p50.toFixed(0)} ms p99 ${phase.load.p99.toFixed(0)} ms`
            : '') +
          `; CPU pressure ${phase.cpuPressure?.toFixed(0)} %, load average ${phase.loadAverage.map((value) => value.toFixed(2)).join(' → ')}`,
      );
    }
    saveResult('load', {
      settings: {
        duration: DURATION,
        idle: IDLE,
        mcpClients: MCP_CLIENTS,
        searchConnections: SEARCH_CONNECTIONS,
        read: READ,
        tenWords: TEN_WORDS,
        worst: WORST,
        goalRatio: GOAL_RATIO,
      },
      phases,
      ratios: { mcp: phases.mcp.p99 / phases.idle.p99, search: phases.search.p99 / phases.idle.p99 },
    });
  } finally {
    await server.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
