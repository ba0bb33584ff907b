import type { Worker } from 'node:worker_threads';
import { describeError } from '../log';
import type { Part } from '../runtime/runtime';
import { LOWEST_PRIORITY, startThread } from '../runtime/threads';
import type { Settings } from '../settings';

/** What the thread makes its federation from: the server's settings groups (plain data) and the actor's handle. */
export type QueueThreadSetup = { settings: Pick<Settings, 'site' | 'store' | 'fediverse' | 'deployment' | 'redis'>; handle: string };
export type ToQueueThread = { stop: true } | { id: number; deliver: readonly string[] };
export type FromQueueThread = { id: number; failed?: string };

/** The queue's thread as lectern's server runs it: a part, and the deliveries handed to it. */
export type QueueThread = Part & {
  /**
   * Has the thread queue a `Create` of each post for the followers (./index.ts, `deliver`): resolves
   * once they are queued; undefined when no thread runs (the caller queues them itself).
   */
  deliver(slugs: readonly string[]): Promise<void> | undefined;
};

/**
 * The thread's heap. A delivery to 10,000 followers over 1,000 servers holds the fan-out (every
 * follower's inboxes, then the 1,000 queued messages made from it) and one send at a time: a few
 * megabytes live. A small young generation is collected often and cheaply, and the old one is
 * collected before it grows far.
 */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 4 };
/**
 * Its CPU priority: the lowest (Linux's niceness 19, on the thread alone), as the newsletter's mail
 * thread's, so a reader's request takes the CPU from a delivery at once. On one core shared with the
 * readers (bench fediverse), a cached read's p99 during a delivery to 1,000 servers was 3.5× idle at
 * niceness 5 and within idle at 19, the delivery 19.8 s and 21.4 s. Where every core is taken by other
 * work at normal priority, the delivery waits for them.
 */
const QUEUE_PRIORITY = LOWEST_PRIORITY;
/** How long a stopping thread has to finish the messages in hand before it is ended (its own wait, STOP_WAIT_MS of ./index.ts, ends first). */
const STOP_MS = 15_000;
/** How long after a thread ended by itself (an error, its heap's limit) another is started. */
const RESTART_MS = 5_000;

type Pending = { resolve: () => void; reject: (error: Error) => void; ended: () => void };

/** The thread ended before it had answered a delivery: whether the posts were queued is not known. */
export class QueueThreadEndedError extends Error {
  constructor() {
    super("the fediverse queue's thread ended before it had queued the delivery");
  }
}

/**
 * Fedify's queue listened to in a worker thread of its own (./queue-worker.ts), on lectern's server:
 * each delivery's JSON-LD, signature and send, and each incoming activity, are handled there, on the
 * same stores (DATA_DIR/fediverse.db or the Redis connection's keys), while the server's thread,
 * which answers readers, only queues them. A thread that ends by itself is started again.
 */
export function fediverseQueueThread(setup: QueueThreadSetup, options: { entry?: URL; log?: Pick<Console, 'warn'>; restartMs?: number } = {}): QueueThread {
  const entry = options.entry ?? new URL('./queue-worker.ts', import.meta.url);
  const log = options.log ?? console;
  let current: { worker: Worker; exited: Promise<void>; pending: Map<number, Pending> } | undefined;
  let stopping = false;
  let nextId = 0;
  let restart: NodeJS.Timeout | undefined;

  function spawn() {
    const worker = startThread(entry, { data: { setup }, resourceLimits: RESOURCE_LIMITS, niceness: QUEUE_PRIORITY });
    let failure = '';
    const pending = new Map<number, Pending>();
    worker.on('error', (error) => (failure = describeError(error)));
    worker.on('message', (message: FromQueueThread) => {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.failed === undefined) waiting.resolve();
      else waiting.reject(new Error(message.failed));
    });
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', (code) => {
        if (current?.worker === worker) current = undefined;
        for (const waiting of pending.values()) waiting.ended();
        pending.clear();
        if (!stopping) {
          log.warn(`fediverse: the queue's thread ended (${failure || `exit code ${code}`}); another starts in ${options.restartMs ?? RESTART_MS} ms`);
          restart = setTimeout(() => {
            restart = undefined;
            if (!stopping && !current) spawn();
          }, options.restartMs ?? RESTART_MS);
        }
        resolve();
      });
    });
    current = { worker, exited, pending };
  }

  return {
    name: 'fediverse queue thread',
    deliver(slugs) {
      const running = current;
      if (!running || stopping) return undefined;
      const id = (nextId += 1);
      return new Promise<void>((resolve, reject) => {
        running.pending.set(id, { resolve, reject, ended: () => reject(new QueueThreadEndedError()) });
        running.worker.postMessage({ id, deliver: slugs } satisfies ToQueueThread);
      });
    },
    start() {
      stopping = false;
      if (!current) spawn();
    },
    async stop() {
      stopping = true;
      clearTimeout(restart);
      const closing = current;
      if (!closing) return;
      closing.worker.postMessage({ stop: true } satisfies ToQueueThread);
      const timer = setTimeout(() => void closing.worker.terminate(), STOP_MS);
      await closing.exited;
      clearTimeout(timer);
    },
  };
}
