import { startThread } from '../runtime/threads';

/**
 * The thread's heap: a post's render and its mail are a few megabytes; the modules they load
 * (the markdown pipeline, the highlighter's grammars, the mail's inliner) most of the rest.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 8 };
/**
 * Its CPU priority (Linux's niceness, on the thread alone): a little below the server's thread,
 * which answers readers. Not lower: on a busy machine a thread at the search thread's 10 took more
 * than the seconds between two posts due close together, and the second was then rendered at its
 * time on the readers' thread.
 */
const RENDER_AHEAD_PRIORITY = 2;

/**
 * Renders the posts due by `until` ahead of their time (./render-ahead.ts) in a worker thread of its
 * own, started for it and ended after: what it loads and makes is not kept in the server. Resolves
 * with how many posts it rendered; rejects when it could not (they are then rendered at their time,
 * as without it).
 */
export function renderAheadInThread(until: number, options: { entry?: URL } = {}): Promise<number> {
  const entry = options.entry ?? new URL('./render-ahead-worker.ts', import.meta.url);
  const worker = startThread(entry, { data: { until }, resourceLimits: RESOURCE_LIMITS, niceness: RENDER_AHEAD_PRIORITY });
  return new Promise<number>((resolve, reject) => {
    let answer: { rendered: number } | { failed: string } | undefined;
    worker.once('message', (message: { rendered: number } | { failed: string }) => {
      answer = message;
      void worker.terminate();
    });
    worker.once('error', (error) => (answer ??= { failed: error.message }));
    worker.once('exit', (code) => {
      if (answer && 'rendered' in answer) resolve(answer.rendered);
      else reject(new Error(answer?.failed ?? `the thread ended (exit code ${code}) before it had rendered them`));
    });
  });
}
