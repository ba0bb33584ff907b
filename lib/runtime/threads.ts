import { Worker, type ResourceLimits } from 'node:worker_threads';

/** The lowest CPU priority (Linux's niceness 19): a thread at it takes the CPU only when the server's own thread leaves it. */
export const LOWEST_PRIORITY = 19;

/**
 * Starts one of lectern's worker threads on the TypeScript module `entry` (a file URL), through
 * ./thread-entry.mjs. The thread gets none of the parent's Node.js options (`execArgv`: the parent's
 * `--import tsx` would load tsx in it twice, and its heap options are the parent's), `data` as its
 * `workerData`, and, when given, its own heap limits and a lower CPU priority (`niceness`, 0 to 19).
 */
export function startThread(
  entry: URL,
  options: { data?: Record<string, unknown>; resourceLimits?: ResourceLimits; niceness?: number; env?: NodeJS.ProcessEnv } = {},
): Worker {
  return new Worker(new URL('./thread-entry.mjs', import.meta.url), {
    execArgv: [],
    workerData: { ...options.data, entry: entry.href, ...(options.niceness !== undefined ? { niceness: options.niceness } : {}) },
    ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
}
