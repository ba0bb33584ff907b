// Preloaded (NODE_OPTIONS=--import) into every Node process of a `next build` by
// bench/build-memory.mjs. Appends to BENCH_MEM_DIR/<role>-<pid>.jsonl, every 500 ms, the
// process's memory as Node sees it (resident set, V8 heap committed and in use, external and
// ArrayBuffer memory), and after each full (mark-compact) collection the heap still in use:
// what the process really keeps, as opposed to garbage V8 has not collected yet.
import fs from 'node:fs';
import path from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import v8 from 'node:v8';

const dir = process.env.BENCH_MEM_DIR;
if (dir) {
  const role = process.env.IS_NEXT_WORKER ? 'worker' : path.basename(process.argv[1] || 'node').replace(/\W+/g, '-');
  const file = path.join(dir, `${role}-${process.pid}.jsonl`);
  const started = Date.now();
  const at = () => (Date.now() - started) / 1000;
  const write = (record) => fs.appendFileSync(file, `${JSON.stringify({ t: at(), ...record })}\n`);
  write({ heapLimit: v8.getHeapStatistics().heap_size_limit });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) write({ majorGc: process.memoryUsage().heapUsed });
    }
  }).observe({ entryTypes: ['gc'] });
  const sample = () => write(process.memoryUsage());
  sample();
  setInterval(sample, 500).unref();
}
