import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** The lowest CPU priority (Linux's niceness 19): a thread at it takes the CPU only when the server's own thread leaves it. */
export const LOWEST_PRIORITY = 19;

/**
 * Starts one of lectern's worker threads on the TypeScript module `entry` (a file URL), through
 * ./thread-entry.mjs. The thread gets none of the parent's Node.js options (`execArgv`: the parent's
 * `--import tsx` would load tsx in it twice, and its heap options are the parent's), `data` as its
 * `workerData`, its own heap limits (its young generation at least), and, when given, a lower CPU
 * priority (`niceness`, 0 to 19).
 *
 * The server's `--max-semi-space-size` (lib/server/node-flags.ts) is a V8 flag of the whole process:
 * while it is set, V8 sizes every new thread's young generation by it, whatever the thread's
 * `resourceLimits` say (the mail thread's heap grew by 16 MiB during a send for it). The main
 * thread's heap was sized when the process started, so the flag is cleared before a thread starts,
 * and each thread names the young generation it needs.
 */
export function startThread(
  entry: URL,
  options: {
    data?: Record<string, unknown>;
    resourceLimits: ResourceLimits & { maxYoungGenerationSizeMb: number };
    niceness?: number;
    env?: NodeJS.ProcessEnv;
  },
): Worker {
  v8.setFlagsFromString('--max-semi-space-size=0');
  return new Worker(new URL('./thread-entry.mjs', import.meta.url), {
    execArgv: [],
    workerData: { ...options.data, entry: entry.href, ...(options.niceness !== undefined ? { niceness: options.niceness } : {}) },
    resourceLimits: options.resourceLimits,
    ...(options.env ? { env: options.env } : {}),
  });
}

/**
 * Lowers the CPU priority of the calling thread alone (`niceness`, 0 to 19): Linux gives each thread
 * its own niceness, and /proc/thread-self names this thread's id. Elsewhere, or where the process may
 * not set it, the thread keeps its priority. A thread cannot raise its priority again.
 */
export function lowerThisThreadPriority(niceness: number): void {
  try {
    os.setPriority(Number(fs.readlinkSync('/proc/thread-self').split('/').pop()), niceness);
  } catch {
    // No /proc, or a priority this process may not set: the thread runs at the process's priority.
  }
}
