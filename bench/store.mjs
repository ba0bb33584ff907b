// Store writes: subscribers.subscribe and the outbox's claimDue + markSent through the real store
// API (openSqliteStore), by bench/lib/store-writes.mjs run inside the tree on the tree's own
// runtime (node --import tsx, in that folder). With --before=REF the same script runs in the
// project at that commit (snapshotRef: its own node_modules and Node.js) in the same rounds,
// the two sides alternating which goes first; medians of the rounds are kept, and their spread.
// Each round runs with the store on the disk and on a memory file system (MEDIA).
//   node bench/store.mjs [--subscribers=2000] [--store-rounds=5] [--before=REF]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cliOptions, log, median, mkdirp, PIN, pinSelf, REPO, runtimeEnv, runtimeOf, runtimeVersion, saveResult, snapshotRef, TMP } from './lib/common.mjs';

const options = cliOptions();
const SUBSCRIBERS = Number(options.subscribers ?? 2000);
// --store-rounds=N (default 5; 1 with --quick's --rounds=1).
const ROUNDS = Math.max(Number(options['store-rounds'] ?? (options.rounds === '1' ? 1 : 5)), 1);
const SCRIPT = path.join(REPO, 'bench', 'lib', 'store-writes.mjs');
const OPS = ['subscribe', 'claimDue', 'markSent'];

function side(id, label, site, script) {
  const node = runtimeOf(site);
  return { id, label, site, script, node, nodeVersion: runtimeVersion(node), rounds: {} };
}

/**
 * Where the store file goes: the machine's disk (BENCH_TMP), where each write waits for its fsync
 * as a site's does, and a memory file system (/dev/shm), where fsync costs nothing and what is left
 * is the SQLite library and the runtime's own work.
 */
const MEDIA = [
  { id: 'disk', dir: path.join(TMP, 'store') },
  ...(fs.existsSync('/dev/shm') ? [{ id: 'memory', dir: path.join('/dev/shm', `lectern-bench-store-${process.pid}`) }] : []),
];

function runOnce(entry, medium) {
  const dir = mkdirp(medium.dir);
  const args = ['--import', 'tsx', entry.script, `--subscribers=${SUBSCRIBERS}`, `--dir=${dir}`];
  const [command, argv] = PIN ? ['taskset', ['-c', '0', entry.node, ...args]] : [entry.node, args];
  const out = execFileSync(command, argv, { cwd: entry.site, env: { ...process.env, ...runtimeEnv(entry.node) }, encoding: 'utf8', timeout: 10 * 60_000 });
  return JSON.parse(out.trim().split('\n').pop());
}

/** Median of the rounds, and their spread: (max − min) / median. */
function figure(values) {
  const mid = median(values);
  return { median: mid, runs: values, spread: values.length > 1 ? (Math.max(...values) - Math.min(...values)) / mid : undefined };
}

async function main() {
  pinSelf(1);
  const sides = [side('after', 'working tree', REPO, SCRIPT)];
  if (options.before) {
    const snapshot = snapshotRef(options.before);
    // The same script, written into the copy so it loads that copy's store and packages.
    const script = path.join(snapshot.site, '.bench-store-writes.mjs');
    fs.copyFileSync(SCRIPT, script);
    sides.push({ ...side('before', `lectern at ${snapshot.short}`, snapshot.site, script), ref: snapshot.sha });
  }
  log(
    `${SUBSCRIBERS} subscribes, then the outbox emptied (claims of 20), ${ROUNDS} rounds: ${sides.map((s) => `${s.label} on Node.js ${s.nodeVersion}`).join(', ')}`,
  );
  for (let round = 1; round <= ROUNDS; round += 1) {
    const order = round % 2 ? sides : [...sides].reverse();
    for (const medium of MEDIA)
      for (const entry of order) {
        const result = runOnce(entry, medium);
        (entry.rounds[medium.id] ??= []).push(result);
        log(
          `round ${round} ${medium.id.padEnd(6)} ${entry.label.padEnd(22)} ${result.sqlite.library} (SQLite ${result.sqlite.version}): ` +
            OPS.map((op) => `${op} ${Math.round(result[op].opsPerSecond)}/s p50 ${result[op].p50Ms.toFixed(3)} p99 ${result[op].p99Ms.toFixed(3)} ms`).join(
              '; ',
            ),
        );
      }
  }
  for (const medium of MEDIA) if (medium.id === 'memory') fs.rmSync(medium.dir, { recursive: true, force: true });
  saveResult('store', {
    settings: { subscribers: SUBSCRIBERS, rounds: ROUNDS, batch: 20, pinned: PIN, media: MEDIA.map(({ id, dir }) => ({ id, dir: path.dirname(dir) })) },
    sides: sides.map((entry) => ({
      id: entry.id,
      label: entry.label,
      ref: entry.ref,
      node: entry.nodeVersion,
      sqlite: entry.rounds.disk[0]?.sqlite,
      media: Object.fromEntries(
        MEDIA.map(({ id }) => {
          const runs = entry.rounds[id];
          return [
            id,
            {
              ...Object.fromEntries(
                OPS.map((op) => [
                  op,
                  {
                    opsPerSecond: figure(runs.map((r) => r[op].opsPerSecond)),
                    p50Ms: figure(runs.map((r) => r[op].p50Ms)),
                    p99Ms: figure(runs.map((r) => r[op].p99Ms)),
                  },
                ]),
              ),
              outboxMailsPerSecond: figure(runs.map((r) => r.outbox.mailsPerSecond)),
            },
          ];
        }),
      ),
    })),
  });
}

await main();
