import type { Worker } from 'node:worker_threads';
import { recordedVerifiedAgent } from '../http/client-ip';
import { problem } from '../http/problem';
import type { Limiter } from '../limits';
import { admitAgent } from '../limits/admission';
import { searchCost } from '../mcp/cost';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from '../search/limits';
import { searchResponse, type SearchAnswer } from '../search/response';
import type { SearchQuery } from '../search/site';
import type { OwnReads } from './read-cache';
import { startThread } from '../runtime/threads';
import { SERVER_SEMI_SPACE_MB } from './node-flags';

/**
 * lectern's server runs `/api/search` and the MCP calls (POST /mcp) in a worker thread that holds the
 * index (./search-worker.ts): a search or a call costs the event loop a message each way, so reads
 * answered from memory do not queue behind them. At most SEARCHES_IN_THREAD jobs are handed to the
 * thread at once (MCP_IN_THREAD of them MCP calls); the others wait here, in order, up to a short
 * queue for each kind (SEARCHES_WAITING, MCP_WAITING): past it a job is refused at once
 * (ThreadBusyError), and the caller answers 503 with Retry-After. A thread that dies is started
 * again, and the jobs it held are asked of the new one.
 */

/** Jobs handed to the thread at once; more wait in the server's queue. */
export const SEARCHES_IN_THREAD = 16;
/** Of those, MCP calls at most, so searches are never all behind MCP calls. */
export const MCP_IN_THREAD = 4;
/** Searches that may wait for the thread; one more is refused. */
export const SEARCHES_WAITING = 64;
/** MCP calls that may wait for the thread; one more is refused. */
export const MCP_WAITING = 64;

/** The thread's queue for a kind of job is full: the caller answers 503 with Retry-After. */
export class ThreadBusyError extends Error {
  constructor(readonly kind: JobKind) {
    super(`the search thread's queue of ${kind === 'search' ? 'searches' : 'MCP calls'} is full`);
    this.name = 'ThreadBusyError';
  }
}

/** A job the thread could not be given (postMessage refused it: a structured clone of it failed); the caller answers it 4xx. */
export class JobNotSendableError extends Error {
  constructor(cause: unknown) {
    super('the job could not be handed to the search thread', { cause });
    this.name = 'JobNotSendableError';
  }
}

/** An MCP POST as the thread is given it: already admitted, its body read and parsed (lib/mcp/http.ts). */
export type McpJob = { url: string; headers: [string, string][]; body: Uint8Array; message: unknown };
/** The thread's answer to it. */
export type McpAnswer = { status: number; headers: [string, string][]; body: Uint8Array };
type JobKind = 'search' | 'mcp';

/**
 * The thread's heap: the young generation the server's own thread has (three of its semi-spaces,
 * ./node-flags.ts), so building the index promotes no more than it did when the thread took the
 * process's flag; the old generation as V8 sizes it.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 3 * SERVER_SEMI_SPACE_MB };

/** The wait before starting a thread again when the one before it died while building its index. */
const RESTART_DELAY_MS = 1000;

/** What the thread says: ready (its index built: posts in it, milliseconds), a search's results, or an MCP call's answer (or why it failed). */
export type FromSearchWorker =
  { ready: true; posts: number; ms: number } | ({ id: number } & SearchAnswer) | { id: number; mcp: McpAnswer } | { id: number; failed: string };
/**
 * What the server asks of the thread: a search, an MCP call, to start the index of the posts live now
 * (one went live), or to build ahead the index of the posts live at a coming post's time.
 */
export type ToSearchWorker = { id: number; query: SearchQuery } | { id: number; mcp: McpJob } | { refresh: true } | { prepare: number };

export type SearchThread = {
  /** Starts the thread (once); resolves as `ready` does. Jobs asked for before wait for it. */
  start(): Promise<void>;
  /** Resolves once the thread has built its index; rejects if the first thread could not start. */
  ready: Promise<void>;
  /** The results of a search (and the posts' Last-Modified); rejects only after the thread has died on it twice (the caller then answers it another way). */
  search(query: SearchQuery): Promise<SearchAnswer>;
  /**
   * An MCP call's answer; rejects with ThreadBusyError when MCP_WAITING calls already wait, with
   * JobNotSendableError when the job cannot be handed to the thread, or as `search` does.
   */
  mcp(job: McpJob): Promise<McpAnswer>;
  /** Whether a job of this kind would be refused now (its queue is full): the caller can refuse it before doing any work. */
  busy(kind: JobKind): boolean;
  /**
   * A post went live: the thread starts its new index now (in slices, answering from the previous
   * one meanwhile), so the first search after the time finds the post instead of starting that index.
   */
  refresh(): void;
  /**
   * A post is due at `at`: the thread builds the index of the posts live then, in slices, and keeps
   * it aside until they are the posts live (lib/search/site.ts, `prepareSearchIndexFor`), so `refresh`
   * at that time finds it made. Asked of a thread being started again, it is not done.
   */
  prepare(at: number): void;
  /** Stops the thread (or keeps it from starting); searches not answered yet reject. */
  stop(): Promise<void>;
  /** Threads started so far (1 until one dies). */
  readonly started: number;
};

type Job = { kind: 'search'; query: SearchQuery } | { kind: 'mcp'; mcp: McpJob };
type Pending = { id: number; job: Job; tries: number; resolve: (answer: never) => void; reject: (error: Error) => void };

export type SearchThreadOptions = {
  /** The build's moment (the settings' `build.time`), handed to the thread as LECTERN_BUILD_TIME. */
  buildTime: number;
  /** The thread's module (./search-worker.ts); tests give one of their own. */
  workerUrl?: URL;
  /** Jobs handed to the thread at once (SEARCHES_IN_THREAD). */
  inThread?: number;
  /** MCP calls handed to it at once (MCP_IN_THREAD). */
  mcpInThread?: number;
  /** Jobs that may wait, by kind (SEARCHES_WAITING, MCP_WAITING). */
  waiting?: { search: number; mcp: number };
  log?: Pick<Console, 'info' | 'warn'>;
};

/** The search thread, made idle: `start()` starts the worker, which builds its index. */
export function createSearchThread(options: SearchThreadOptions): SearchThread {
  const entry = options.workerUrl ?? new URL('./search-worker.ts', import.meta.url);
  const inThread = options.inThread ?? SEARCHES_IN_THREAD;
  const mcpInThread = Math.min(inThread, options.mcpInThread ?? MCP_IN_THREAD);
  const mayWait = options.waiting ?? { search: SEARCHES_WAITING, mcp: MCP_WAITING };
  const log = options.log ?? console;
  // The thread has this process's settings (its clock offset too, so it judges which posts are live as this thread
  // does) and the same time origin (LECTERN_BUILD_TIME) for Last-Modified, also when it is started again later.
  const env = { ...process.env, LECTERN_BUILD_TIME: String(options.buildTime) };
  const waiting: Pending[] = [];
  const handed = new Map<number, Pending>();
  let nextId = 0;
  let started = 0;
  let stopping = false;
  let worker: Worker | undefined;
  let live = false;

  const fail = (pending: Pending, message: string) => pending.reject(new Error(message));

  const count = (jobs: Iterable<Pending>, kind: JobKind) => {
    let found = 0;
    for (const pending of jobs) if (pending.job.kind === kind) found += 1;
    return found;
  };

  function pump(): void {
    let mcpHanded = count(handed.values(), 'mcp');
    for (let index = 0; live && handed.size < inThread && index < waiting.length;) {
      const pending = waiting[index]!;
      if (pending.job.kind === 'mcp' && mcpHanded >= mcpInThread) {
        index += 1;
        continue;
      }
      waiting.splice(index, 1);
      if (!hand(pending)) continue;
      if (pending.job.kind === 'mcp') mcpHanded += 1;
    }
  }

  /**
   * Hands one job to the thread, its slot taken while it is there. A job that cannot be sent (its
   * message cannot be cloned: JobNotSendableError) never takes a slot and is refused at once.
   */
  function hand(pending: Pending): boolean {
    const message: ToSearchWorker = pending.job.kind === 'mcp' ? { id: pending.id, mcp: pending.job.mcp } : { id: pending.id, query: pending.job.query };
    try {
      worker?.postMessage(message);
    } catch (error) {
      pending.reject(new JobNotSendableError(error));
      return false;
    }
    pending.tries += 1;
    handed.set(pending.id, pending);
    return true;
  }

  function queue<T>(job: Job): Promise<T> {
    if (stopping) return Promise.reject(new Error('the search thread is stopped'));
    if (count(waiting, job.kind) >= mayWait[job.kind]) return Promise.reject(new ThreadBusyError(job.kind));
    return new Promise<T>((resolve, reject) => {
      waiting.push({ id: (nextId += 1), job, tries: 0, resolve: resolve as (answer: never) => void, reject });
      pump();
    });
  }

  let markReady: () => void;
  let markFailed: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    markFailed = reject;
  });

  function spawn(): void {
    started += 1;
    live = false;
    // At the server's own CPU priority until its first index is built (./search-worker.ts, INDEXED_PRIORITY).
    const thread = startThread(entry, { env, resourceLimits: RESOURCE_LIMITS });
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
      if ('failed' in message) pending.reject(new Error(message.failed));
      else if ('mcp' in message) (pending.resolve as (answer: McpAnswer) => void)(message.mcp);
      else (pending.resolve as (answer: SearchAnswer) => void)({ results: message.results, lastModified: message.lastModified });
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
      if (wasLive) spawn();
      else setTimeout(() => stopping || spawn(), RESTART_DELAY_MS).unref();
    });
  }

  return {
    start() {
      if (started === 0 && !stopping) spawn();
      return ready;
    },
    ready,
    get started() {
      return started;
    },
    search(query) {
      return queue<SearchAnswer>({ kind: 'search', query });
    },
    mcp(job) {
      return queue<McpAnswer>({ kind: 'mcp', mcp: job });
    },
    busy(kind) {
      return count(waiting, kind) >= mayWait[kind];
    },
    refresh() {
      // A thread not live yet (being started again) builds its index from the posts live when it starts.
      if (live && !stopping) worker?.postMessage({ refresh: true } satisfies ToSearchWorker);
    },
    prepare(at) {
      if (live && !stopping) worker?.postMessage({ prepare: at } satisfies ToSearchWorker);
    },
    async stop() {
      stopping = true;
      for (const pending of [...waiting, ...handed.values()]) fail(pending, 'the search thread is stopped');
      waiting.length = 0;
      handed.clear();
      await worker?.terminate();
    },
  };
}

/** Whole seconds a refused search or MCP call is asked to wait before it tries again. */
export const BUSY_RETRY_AFTER_SECONDS = 1;
/**
 * How long a refusal waits before it is sent: a client that tries again at once (as a flood does)
 * then asks a few times a second instead of as fast as refusals can be written, so the refusals do
 * not take the thread that answers reads. Waiting costs a timer, no work.
 */
export const BUSY_ANSWER_DELAY_MS = 500;

/** The 503 (problem+json, `overloaded`, Retry-After) for a job the thread's queue had no room for, sent after BUSY_ANSWER_DELAY_MS. */
export function busyResponse(what: string, delayMs = BUSY_ANSWER_DELAY_MS): Promise<Response> {
  const refusal = () =>
    problem('overloaded', `Too many ${what} at once; try again in ${BUSY_RETRY_AFTER_SECONDS} second${BUSY_RETRY_AFTER_SECONDS === 1 ? '' : 's'}.`, {
      cache: 'live',
      headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
    });
  return new Promise((resolve) => setTimeout(() => resolve(refusal()), delayMs));
}

/** The results a search asks for (`limit`, or the default for none or a bad one, which is answered 400 anyway). */
function askedLimit(params: URLSearchParams): number {
  const limit = Number(params.get('limit') ?? SEARCH_LIMIT_DEFAULT);
  return Number.isInteger(limit) && limit >= 1 && limit <= SEARCH_LIMIT_MAX ? limit : SEARCH_LIMIT_DEFAULT;
}

/**
 * `/api/search` answered by the read cache with the thread's results (the same response as
 * app/api/search/route.ts); past the thread's queue, a 503 (`busyResponse`). A verified agent's
 * search (Web Bot Auth, recorded by ./request-handler.ts) is counted against its identity's budget
 * (`searchAgent`, priced as an MCP search of as many results) and carries its RateLimit headers;
 * past the budget it is a 503 `overloaded` with the budget's Retry-After, never a 429 (a read is
 * never rate limited). Any other search is counted nowhere, as before.
 */
export function searchReads(thread: SearchThread, busyDelayMs?: number, limiter?: () => Limiter): OwnReads {
  return (path, query, headers) => {
    if (path !== '/api/search') return undefined;
    const params = new URLSearchParams(query);
    const search = () =>
      searchResponse(params, (parsed) => thread.search(parsed)).catch((error: unknown) =>
        error instanceof ThreadBusyError ? busyResponse('searches', busyDelayMs) : Promise.reject(error),
      );
    const agent = limiter && recordedVerifiedAgent(headers);
    if (!agent) return search();
    return admitAgent(agent, 'searchAgent', limiter(), searchCost(askedLimit(params))).then(async (admission) => {
      console.info(`search from verified agent ${agent}${admission.ok ? '' : ' (past its budget)'}`);
      const response = admission.ok
        ? await search()
        : problem('overloaded', admission.refusal.detail, {
            cache: 'live',
            headers: admission.refusal.headers,
          });
      for (const [name, value] of Object.entries(admission.headers)) response.headers.set(name, value);
      return response;
    });
  };
}
