import { parentPort, workerData } from 'node:worker_threads';
import { describeError } from '../log';
import { renderAhead } from './render-ahead';

/**
 * The thread lectern's server starts before a post's time (./render-ahead-thread.ts): it renders the
 * posts due by `until` into the build's cache (./render-ahead.ts), says how many, and ends.
 */
const port = parentPort;
if (!port) throw new Error('lib/publishing/render-ahead-worker.ts runs as a worker thread of lectern');

const { until } = workerData as { until: number };
try {
  port.postMessage({ rendered: await renderAhead(until) });
} catch (error) {
  port.postMessage({ failed: describeError(error) });
}
