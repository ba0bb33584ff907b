// The entry of lectern's worker threads (./threads.ts): the thread lowers its own CPU priority when
// asked, registers tsx (a worker is started without the parent's `--import tsx`), then loads its
// TypeScript module.
import fs from 'node:fs';
import os from 'node:os';
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

if (workerData.niceness !== undefined) {
  // Linux gives each thread its own niceness: /proc/thread-self names this thread's id. Elsewhere the
  // thread keeps the process's priority.
  try {
    os.setPriority(Number(fs.readlinkSync('/proc/thread-self').split('/').pop()), workerData.niceness);
  } catch {
    // No /proc, or a priority this process may not set: the thread runs at the process's priority.
  }
}
register();
await import(workerData.entry);
