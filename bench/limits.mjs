// Write routes: the latency a limit decision adds to a request, and decisions per second,
// for the in-memory limiter and for a local Redis server (started here on a free loopback
// port, stopped at the end). Calls lib/limits directly; run through tsx:
//   node --import tsx bench/limits.mjs [--memory-decisions=200000] [--redis-decisions=30000]
import { createClient } from 'redis';
import { memoryLimiter, withFallback } from '../lib/limits/limiter.ts';
import { redisServerLimiter } from '../lib/limits/index.ts';
import { cliOptions, PIN, TMP, freePort, log, mkdirp, percentile, pinSelf, saveResult, sleep, startProcess } from './lib/common.mjs';

const options = cliOptions();
const MEMORY_DECISIONS = Number(options['memory-decisions'] ?? 200_000);
const REDIS_DECISIONS = Number(options['redis-decisions'] ?? 30_000);
const CONCURRENCY = Number(options.concurrency ?? 50);
const ROUTE = 'subscribe';

/** A distinct IPv4 client per index: each decision is a first request, so it is allowed. */
const client = (i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

function stats(samples, elapsedSeconds) {
  const sorted = Float64Array.from(samples).sort();
  return {
    decisions: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted[sorted.length - 1],
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    perSecond: sorted.length / elapsedSeconds,
  };
}

/** A decision that failed (the limiter gave up on its backend) counts with the time it took. */
let failures = 0;
async function timed(check, key) {
  const t = process.hrtime.bigint();
  try {
    await check(key);
  } catch {
    failures += 1;
  }
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** One decision at a time: the latency each adds to its request. */
async function sequential(check, count, keyOf) {
  const samples = new Float64Array(count);
  const started = performance.now();
  for (let i = 0; i < count; i += 1) samples[i] = await timed(check, keyOf(i));
  return stats(samples, (performance.now() - started) / 1000);
}

/** `concurrency` decisions in flight, as under load: decisions per second, and the latency then. */
async function concurrent(check, count, keyOf) {
  const samples = new Float64Array(count);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        samples[i] = await timed(check, keyOf(i));
      }
    }),
  );
  return stats(samples, (performance.now() - started) / 1000);
}

async function measure(name, limiter, count, offset) {
  const check = (key) => limiter.check(ROUTE, key);
  // The first decision connects and loads the script; wait for it, untimed.
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      await check(client(offset + 8_000_000 + attempt));
      break;
    } catch {
      await sleep(100);
    }
  }
  await sequential(check, Math.min(5000, count), (i) => client(offset + 9_000_000 + i)); // warm-up: JIT, scripts loaded
  failures = 0;
  const allowed = await sequential(check, count, (i) => client(offset + i));
  // One client far over its limit: every decision is a refusal, which also reads both window counters.
  const refused = await sequential(check, Math.min(count, 20_000), () => `${offset}.refused.client`);
  const underLoad = await concurrent(check, count, (i) => client(offset + 5_000_000 + i));
  const row = { name, allowed, refused, underLoad, failures };
  log(
    `${name.padEnd(26)} allowed p50 ${allowed.p50.toFixed(3)} ms p99 ${allowed.p99.toFixed(3)} ms p99.9 ${allowed.p999.toFixed(3)} ms | refused p99 ${refused.p99.toFixed(3)} ms | ` +
      `${Math.round(underLoad.perSecond)} decisions/s at ${CONCURRENCY} in flight (p99 ${underLoad.p99.toFixed(3)} ms)${failures ? `, ${failures} decisions failed` : ''}`,
  );
  return row;
}

async function main() {
  pinSelf(1);
  const results = [];
  // The in-memory store holds at most 100,000 keys (lib/limits/window-counters.ts). Measured twice:
  // with room to spare (the usual case), and already full, as under a flood of distinct clients.
  const memory = memoryLimiter({ windowScale: 1, maxKeys: 10 * MEMORY_DECISIONS + 100_000 });
  results.push({ ...(await measure('memory', memory, MEMORY_DECISIONS, 0)), keysHeld: memory.counts.size });
  const full = memoryLimiter({ windowScale: 1 });
  for (let i = 0; i < 100_000; i += 1) await full.check(ROUTE, `filler-${i}`);
  results.push({ ...(await measure('memory, key cap reached', full, Math.min(MEMORY_DECISIONS, 50_000), 20_000_000)), keysHeld: full.counts.size });

  const port = await freePort();
  const dir = mkdirp(`${TMP}/redis`);
  const redis = startProcess(
    'redis-server',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { cpu: 0 },
  );
  const url = `redis://127.0.0.1:${port}`;
  try {
    let probe;
    for (let attempt = 0; ; attempt += 1) {
      // A client per attempt: node-redis keeps reconnecting one whose first connect failed.
      const candidate = createClient({ url, socket: { reconnectStrategy: false } });
      candidate.on('error', () => undefined);
      try {
        await candidate.connect();
        probe = candidate;
        break;
      } catch (error) {
        if (attempt > 50) throw error;
        await sleep(100);
      }
    }
    // The floor under any Redis decision: one round trip to the server.
    const ping = await sequential(
      () => probe.ping(),
      20_000,
      () => undefined,
    );
    log(`redis PING round trip       p50 ${ping.p50.toFixed(3)} ms p99 ${ping.p99.toFixed(3)} ms`);
    await probe.quit();

    const options = { timeoutMs: 250, windowScale: 1 };
    const server = redisServerLimiter(url, options);
    results.push(await measure('redis', server, REDIS_DECISIONS, 1_000_000));
    // As the site runs it: Redis first, memory when Redis is unavailable.
    const fallback = withFallback(redisServerLimiter(url, options), memoryLimiter({ windowScale: 1 }), { warn: () => undefined, info: () => undefined });
    results.push(await measure('redis (memory fallback)', fallback, REDIS_DECISIONS, 2_000_000));
    await server.close();
    saveResult('limits', {
      settings: { route: ROUTE, concurrency: CONCURRENCY, memoryDecisions: MEMORY_DECISIONS, redisDecisions: REDIS_DECISIONS, pinned: PIN },
      redisPing: ping,
      results,
    });
  } finally {
    await redis.stop();
  }
  // node-redis keeps reconnect timers alive after the server goes; nothing is left to do.
  process.exit(process.exitCode ?? 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
