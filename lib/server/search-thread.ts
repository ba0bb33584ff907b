import { Worker } from 'node:worker_threads';
import { searchResponse, type SearchAnswer } from '../search/response';
import type { SearchQuery } from '../search/site';
import type { OwnReads } from './read-cache';
import { settings } from '../settings';

/**
 * lectern's server runs `/api/search` in a worker thread that holds the index (./search-worker.ts):
 * a search costs the event loop a message each way, so reads answered from memory do not queue
 * behind searches. At most SEARCHES_IN_THREAD searches are handed to the thread at once; the
 * others wait here, in order (a search is never refused: reads are not rate limited). A thread
 * that dies is started again, and the searches it held are asked of the new one.
 */

/** Searches handed to the thread at once; more wait in the server's queue. */
export const SEARCHES_IN_THREAD = 16;

/** The wait before starting a thread again when the one before it died while building its index. */
const RESTART_DELAY_MS = 1000;

/** What the thread says: ready (its index built: posts in it, milliseconds), or a search's results. */
export type FromSearchWorker = { ready: true; posts: number; ms: number } | ({ id: number } & SearchAnswer);
/** What the server asks of the thread: a search, or to start the index of the posts live now (one went live). */
export type ToSearchWorker = { id: number; query: SearchQuery } | { refresh: true };

export type SearchThread = {
  /** Resolves once the thread has built its index; rejects if the first thread could not start. */
  ready: Promise<void>;
  /** The results of a search (and the posts' Last-Modified); rejects only after the thread has died on it twice (the caller then answers it another way). */
  search(query: SearchQuery): Promise<SearchAnswer>;
  /**
   * A post went live: the thread starts its new index now (in slices, answering from the previous
   * one meanwhile), so the first search after the time finds the post instead of starting that index.
   */
  refresh(): void;
  /** Stops the thread; searches not answered yet reject. */
  stop(): Promise<void>;
  /** Threads started so far (1 until one dies). */
  readonly started: number;
};

type Pending = { id: number; query: SearchQuery; tries: number; resolve: (answer: SearchAnswer) => void; reject: (error: Error) => void };

export type SearchThreadOptions = {
  /** The thread's module (./search-worker.ts); tests give one of their own. */
  workerUrl?: URL;
  /** Searches handed to the thread at once (SEARCHES_IN_THREAD). */
  inThread?: number;
  log?: Pick<Console, 'info' | 'warn'>;
};

export function startSearchThread(options: SearchThreadOptions = {}): SearchThread {
  const entry = (options.workerUrl ?? new URL('./search-worker.ts', import.meta.url)).href;
  const inThread = options.inThread ?? SEARCHES_IN_THREAD;
  const log = options.log ?? console;
  // The thread has this process's settings (its clock offset too, so it judges which posts are live as this thread
  // does) and the same time origin (lib/config.ts) for Last-Modified, also when it is started again later.
  const env = { ...process.env, LECTERN_BUILD_TIME: String(settings().build.time) };
  const waiting: Pending[] = [];
  const handed = new Map<number, Pending>();
  let nextId = 0;
  let started = 0;
  let stopping = false;
  let worker: Worker;
  let live = false;

  const fail = (pending: Pending, message: string) => pending.reject(new Error(message));

  function pump(): void {
    while (live && handed.size < inThread && waiting.length > 0) {
      const pending = waiting.shift() as Pending;
      pending.tries += 1;
      handed.set(pending.id, pending);
      worker.postMessage({ id: pending.id, query: pending.query } satisfies ToSearchWorker);
    }
  }

  let markReady: () => void;
  let markFailed: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markFailed = reject;
  });

  function start(): void {
    started += 1;
    live = false;
    const thread = new Worker(new URL('./search-worker.mjs', import.meta.url), { env, workerData: { entry } });
    worker = thread;
    thread.on('message', (message: FromSearchWorker) => {
      if ('ready' in message) {
        log.info(`search thread ${started === 1 ? 'ready' : 'started again'}: ${message.posts} posts indexed in ${message.ms} ms`);
        live = true;
        markReady();
        pump();
        return;
      }
      const pending = handed.get(message.id);
      if (!pending) return;
      handed.delete(message.id);
      pending.resolve({ results: message.results, lastModified: message.lastModified });
      pump();
    });
    thread.on('error', (error) => log.warn(`search thread failed: ${error.message}`));
    thread.on('exit', (code) => {
      if (stopping || thread !== worker) return;
      if (started === 1 && !live) {
        markFailed(new Error(`the search thread exited (${code}) before its index was built`));
        return;
      }
      const wasLive = live;
      log.warn(`search thread exited (${code}); starting another`);
      // Searches it held go to the new thread first, once each; one that was already retried is answered another way.
      const retried = [...handed.values()];
      handed.clear();
      for (const pending of retried.reverse()) {
        if (pending.tries >= 2) fail(pending, 'the search thread died on this search twice');
        else waiting.unshift(pending);
      }
      // One that died before its index was built is not started again at once, so a thread that cannot start does not spin.
      if (wasLive) start();
      else setTimeout(() => stopping || start(), RESTART_DELAY_MS).unref();
    });
  }
  start();

  return {
    ready,
    get started() {
      return started;
    },
    search(query) {
      if (stopping) return Promise.reject(new Error('the search thread is stopped'));
      return new Promise((resolve, reject) => {
        waiting.push({ id: (nextId += 1), query, tries: 0, resolve, reject });
        pump();
      });
    },
    refresh() {
      // A thread not live yet (being started again) builds its index from the posts live when it starts.
      if (live && !stopping) worker.postMessage({ refresh: true } satisfies ToSearchWorker);
    },
    async stop() {
      stopping = true;
      for (const pending of [...waiting, ...handed.values()]) fail(pending, 'the search thread is stopped');
      waiting.length = 0;
      handed.clear();
      await worker.terminate();
    },
  };
}

/** `/api/search` answered by the read cache with the thread's results (the same response as app/api/search/route.ts). */
export function searchReads(thread: SearchThread): OwnReads {
  return (path, query) => (path === '/api/search' ? searchResponse(new URLSearchParams(query), (parsed) => thread.search(parsed)) : undefined);
}
