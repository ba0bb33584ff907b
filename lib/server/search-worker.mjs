// The search thread's entry (./search-thread.ts): Node.js 20 does not hand the parent's
// `--import tsx` hooks to a worker thread, so the thread registers tsx itself, then loads
// its TypeScript module.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
