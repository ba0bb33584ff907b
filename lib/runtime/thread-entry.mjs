// The entry of lectern's worker threads (./threads.ts): the thread registers tsx (a worker is started
// without the parent's `--import tsx`), lowers its own CPU priority when asked, then loads its
// TypeScript module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
if (workerData.niceness !== undefined) (await import('./threads.ts')).lowerThisThreadPriority(workerData.niceness);
await import(workerData.entry);
