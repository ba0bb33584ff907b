import { AsyncLocalStorage } from 'node:async_hooks';
import os from 'node:os';
import type { KvKey, KvStore, MessageQueue, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import { describeError } from '../log';
import { DEFAULT_FEDIVERSE_SEND_TIMEOUT_SECONDS } from '../settings';

/** A message as a store keeps it: its own ID in the store, and Fedify's message. */
export type QueueEntry = { id: string; message: unknown };
/** A message to add, due at a moment (epoch milliseconds). */
export type QueuedMessage = { message: unknown; due: number };

/**
 * Where a durable queue keeps its messages (./durable-stores.ts: SQLite, Redis). A message taken is
 * leased, not removed: it stays in the store until it is finished, and one whose lease ran out (its
 * process died) is taken again.
 */
export type QueueBackend = {
  put(messages: readonly QueuedMessage[]): Promise<void>;
  /** Leases to `owner` until `until` the first message due by `now` that no live lease holds. */
  take(now: number, owner: string, until: number): Promise<QueueEntry | undefined>;
  /** Extends `owner`'s lease of a message it is still handling. */
  renew(id: string, owner: string, until: number): Promise<void>;
  /** Removes a handled message and adds `then` (its retry, when there is one), in one step. */
  finish(id: string, then: readonly QueuedMessage[]): Promise<void>;
  /** At start: gives back at once the leases of owners known dead (SQLite: processes of this host that are gone). */
  releaseDead?(owner: string): Promise<number>;
};

/** The owners made in this process: one of this pid that is not among them was a process before this one (a container restarted). */
const ownersHere = new Set<string>();

/** Who holds a lease: this host, this process, and this queue (a process restarted under the same pid is another owner). */
export function leaseOwner(): string {
  const owner = `${os.hostname()}/${process.pid}/${crypto.randomUUID()}`;
  ownersHere.add(owner);
  return owner;
}

/** Whether the owner of a lease is a process of this host that is gone (so its leases can be given back without waiting). */
export function ownerIsDead(owner: string, self: string): boolean {
  const [host, pid] = owner.split('/');
  const [selfHost, selfPid] = self.split('/');
  if (host !== selfHost || pid === undefined) return false;
  if (pid === selfPid) return !ownersHere.has(owner);
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The part of Fedify's queued messages the delivery ledger reads (an outbox message is one activity to one inbox). */
type FedifyMessage = { id?: string; type?: string; activityId?: string; inbox?: string; attempt?: number; started?: string };
const asFedify = (message: unknown): FedifyMessage => (message && typeof message === 'object' ? (message as FedifyMessage) : {});

/**
 * What the message being handled has done so far: what it queued again under its own ID (a retry), and how a send failed;
 * and how long each of its fetches may take.
 */
type Handling = { fedifyId: string | undefined; again: QueuedMessage[]; failure?: unknown; gaveUp?: string; fetchTimeoutMs: number };
const handling = new AsyncLocalStorage<Handling>();

let fetchesBounded = false;

/**
 * Fedify sends activities with the global `fetch`, and gives it no timeout: an inbox that takes the
 * connection and never answers would hold one of the queue's send slots for good, and its message
 * would be neither retried nor given up. So the global `fetch` of this thread (once, however many
 * queues it makes) bounds every request made while a queued message is handled and that brings no
 * signal of its own, to the message's `fetchTimeoutMs`. Any other request goes by as it came.
 */
function boundFetchesOfHandling(): void {
  if (fetchesBounded) return;
  fetchesBounded = true;
  const unbounded = globalThis.fetch;
  const bounded: typeof fetch = (input, init) => {
    const current = handling.getStore();
    if (!current || init?.signal) return unbounded(input, init);
    return unbounded(input, { ...init, signal: AbortSignal.timeout(current.fetchTimeoutMs) });
  };
  // What another wrapper put on the fetch it wrapped (Next marks its own) stays readable.
  globalThis.fetch = Object.assign(bounded, unbounded);
}

/**
 * Fedify's hooks (lib/fediverse/index.ts): a send of the message being handled failed (`onOutboxError`),
 * or Fedify gave it up for good (`setOutboxPermanentFailureHandler`). Said once, when its message is
 * finished without a retry (`durableQueue`).
 */
export const deliveryHooks = {
  failed(error: unknown): void {
    const current = handling.getStore();
    if (current) current.failure = error;
  },
  gaveUp(reason: string): void {
    const current = handling.getStore();
    if (current) current.gaveUp = reason;
  },
};

/** A delivery's entry in the ledger: being sent under one of Fedify's message IDs (its retries keep it), or done. */
type LedgerEntry = { sending: string } | { done: true };
const LEDGER: readonly [string, string] = ['lectern', 'delivery'];

export type DeliveryLedger = {
  /** Claims the delivery of `activityId` to `inbox` for Fedify's message `fedifyId`: false when it is done, or another message is on it. */
  begin(activityId: string, inbox: string, fedifyId: string): Promise<boolean>;
  /** The delivery is over (delivered, or given up): a copy of its message handled again is skipped. */
  done(activityId: string, inbox: string): Promise<void>;
};

/**
 * Which activity went to which inbox, in the fediverse's key–value store, kept `ttlMs` (30 days by
 * default). A message handled again after a crash, or a second message for the same activity and
 * inbox (a fan-out handled again, an activity queued again by a deploy), is skipped once its
 * delivery is done or while another message is on it; a retry keeps its message's ID, so it goes on.
 */
export function deliveryLedger(kv: KvStore, ttlMs = 30 * 24 * 3_600_000): DeliveryLedger {
  const ttl = Temporal.Duration.from({ milliseconds: ttlMs });
  const key = (activityId: string, inbox: string): KvKey => [...LEDGER, activityId, inbox];
  return {
    async begin(activityId, inbox, fedifyId) {
      const entry = key(activityId, inbox);
      for (let tries = 0; tries < 3; tries += 1) {
        const current = await kv.get<LedgerEntry>(entry);
        if (current && ('done' in current || current.sending !== fedifyId)) return false;
        if (current) return true;
        const claimed: LedgerEntry = { sending: fedifyId };
        if (!kv.cas) {
          await kv.set(entry, claimed, { ttl });
          return true;
        }
        if (await kv.cas(entry, undefined, claimed, { ttl })) return true;
      }
      return false;
    },
    async done(activityId, inbox) {
      await kv.set(key(activityId, inbox), { done: true } satisfies LedgerEntry, { ttl });
    },
  };
}

export type DurableQueueOptions = {
  /** Skips a delivery already done (`deliveryLedger`); without it every message is handled as it comes. */
  ledger?: DeliveryLedger;
  /** How long a message taken is held before another taker may take it again; renewed while it is handled. */
  leaseMs?: number;
  pollMs?: number;
  /** How many messages a listener handles at once. */
  concurrency?: number;
  /** How long each request made while a message is handled may take (FEDIVERSE_SEND_TIMEOUT_SECONDS; 30 s by default). */
  sendTimeoutMs?: number;
  log?: Pick<Console, 'warn'>;
  now?: () => number;
};

/** How many failed looks at the queue in a row make a line in the log. */
const FAILURES_WORTH_A_LINE = 5;

/**
 * Fedify's message queue on a store that keeps each message until it is handled (`QueueBackend`):
 * taken under a lease (renewed while it is handled), removed once its handler is done, and taken
 * again after a crash (at once where the dead process is known, else when its lease runs out).
 * A retry Fedify queues while handling a message (the same message, one attempt more) replaces it
 * in one step, so a crash between the two neither loses the retry nor sends twice. With a `ledger`,
 * an outbox message (one activity to one inbox) whose delivery is done is skipped, and its delivery
 * is marked done once handled without a retry; a delivery that failed without a retry (given up)
 * makes one line in the log. A request made while a message is handled (an activity sent to an
 * inbox) is abandoned after `sendTimeoutMs`, as a failed send. Stopping (the listener's signal): no
 * message is taken any more, and `listen` resolves once the ones being handled are finished.
 */
export function durableQueue(backend: QueueBackend, options: DurableQueueOptions = {}): MessageQueue {
  const { ledger } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const pollMs = options.pollMs ?? 1_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const fetchTimeoutMs = options.sendTimeoutMs ?? DEFAULT_FEDIVERSE_SEND_TIMEOUT_SECONDS * 1000;
  boundFetchesOfHandling();
  const log = options.log ?? console;
  const now = options.now ?? Date.now;
  const owner = leaseOwner();
  const queued = new EventTarget();
  const dueOf = (enqueueOptions?: MessageQueueEnqueueOptions) => now() + (enqueueOptions?.delay ? Math.max(0, enqueueOptions.delay.total('millisecond')) : 0);

  async function put(messages: readonly unknown[], enqueueOptions?: MessageQueueEnqueueOptions): Promise<void> {
    const due = dueOf(enqueueOptions);
    const current = handling.getStore();
    const fresh: QueuedMessage[] = [];
    for (const message of messages) {
      // The message being handled, queued again (Fedify's retry, or a delivery held while its server's circuit is open):
      // it replaces the one being handled when that is finished.
      if (current?.fedifyId !== undefined && asFedify(message).id === current.fedifyId) current.again.push({ message, due });
      else fresh.push({ message, due });
    }
    if (fresh.length === 0) return;
    await backend.put(fresh);
    if (due <= now()) queued.dispatchEvent(new Event('queued'));
  }

  /** Handles one message taken: the ledger first for a delivery, then Fedify's handler; resolves once it is finished. */
  async function handle(entry: QueueEntry, handler: (message: unknown) => Promise<void> | void): Promise<void> {
    const fedify = asFedify(entry.message);
    const delivery =
      ledger && fedify.type === 'outbox' && fedify.activityId && fedify.inbox && fedify.id ? { activityId: fedify.activityId, inbox: fedify.inbox } : undefined;
    const renewal = setInterval(() => void backend.renew(entry.id, owner, now() + leaseMs).catch(() => undefined), Math.max(50, leaseMs / 3));
    try {
      if (delivery && !(await ledger!.begin(delivery.activityId, delivery.inbox, fedify.id!))) {
        await backend.finish(entry.id, []);
        return;
      }
      const state: Handling = { fedifyId: fedify.id, again: [], fetchTimeoutMs };
      try {
        await handling.run(state, () => handler(entry.message));
      } catch (error) {
        log.warn(`fediverse: a queued task failed (${describeError(error)})`);
      }
      if (delivery && state.again.length === 0) {
        if (state.failure !== undefined || state.gaveUp !== undefined) {
          const tries = (fedify.attempt ?? 0) + 1;
          const since = fedify.started ? `, first tried ${fedify.started}` : '';
          const why = state.gaveUp ?? describeError(state.failure);
          log.warn(
            `fediverse: gave up delivering ${delivery.activityId} to ${delivery.inbox} after ${tries} attempt${tries === 1 ? '' : 's'}${since} (${why})`,
          );
        }
        // The ledger before the message goes: a crash between the two finds the delivery done, and skips it.
        await ledger!.done(delivery.activityId, delivery.inbox).catch((error: unknown) => {
          log.warn(`fediverse: could not record the delivery of ${delivery.activityId} to ${delivery.inbox} (${describeError(error)})`);
        });
      }
      await backend.finish(entry.id, state.again);
      if (state.again.some((retry) => retry.due <= now())) queued.dispatchEvent(new Event('queued'));
    } finally {
      clearInterval(renewal);
    }
  }

  return {
    nativeRetrial: false,
    enqueue: (message, enqueueOptions) => put([message], enqueueOptions),
    enqueueMany: (messages, enqueueOptions) => put(messages, enqueueOptions),
    async listen(handler, listenOptions: MessageQueueListenOptions = {}) {
      const { signal } = listenOptions;
      try {
        const released = (await backend.releaseDead?.(owner)) ?? 0;
        if (released > 0) log.warn(`fediverse: ${released} message${released === 1 ? '' : 's'} a stopped process was handling queued again`);
      } catch (error) {
        log.warn(`fediverse: the queue's leases could not be checked (${describeError(error)}); they run out by themselves`);
      }
      let failures = 0;
      const wait = () =>
        new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            queued.removeEventListener('queued', done);
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, pollMs);
          queued.addEventListener('queued', done);
          signal?.addEventListener('abort', done);
        });
      const worker = async () => {
        while (!signal?.aborted) {
          let entry: QueueEntry | undefined;
          try {
            entry = await backend.take(now(), owner, now() + leaseMs);
            failures = 0;
          } catch (error) {
            failures += 1;
            if (failures % FAILURES_WORTH_A_LINE === 0)
              log.warn(`fediverse: the queue could not be read ${failures} times in a row (${describeError(error)}); it looks again shortly`);
          }
          if (!entry) {
            await wait();
            continue;
          }
          try {
            await handle(entry, handler);
          } catch (error) {
            // The store failed around the handler: the message keeps its lease, and is taken again when it runs out.
            log.warn(`fediverse: a queued message could not be finished (${describeError(error)}); it is taken again later`);
          }
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    },
  };
}
