import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import type { KvStore, MessageQueue } from '@fedify/fedify';
import { SqliteKvStore } from '@fedify/sqlite';
import { Temporal } from '@js-temporal/polyfill';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryHooks, deliveryLedger, durableQueue, type QueueBackend } from '@/lib/fediverse/durable-queue';
import { redisQueueBackend, sqliteQueueBackend } from '@/lib/fediverse/durable-stores';
import { redisKvStore } from '@/lib/fediverse/redis-stores';
import { failFastRedis, redisEvaluator, type FailFastRedis } from '@/lib/redis/client';
import { testRedisUrl } from '../../support/redis';

// Database 0 (shared with redis-stores.test.ts), each test's keys under a namespace of its own.
let redis: FailFastRedis;
const namespaces: string[] = [];

beforeAll(() => {
  redis = failFastRedis(testRedisUrl(0), { commandTimeoutMs: 2000 });
});

afterAll(async () => {
  for (const prefix of namespaces) {
    const keys = await redis.run((client) => client.keys(`${prefix}*`));
    if (keys.length > 0) await redis.run((client) => client.del(keys));
  }
  await redis.close();
});

/** A store for the queue and the ledger: `open` gives a second connection to the same one (another process, or another instance). */
type Store = { backend: () => QueueBackend; kv: () => KvStore };

function sqliteStore(): Store {
  const file = `${os.tmpdir()}/lectern-queue-${crypto.randomUUID()}.db`;
  return {
    backend: () => sqliteQueueBackend(new DatabaseSync(file, { timeout: 5000 })),
    kv: () => new SqliteKvStore(new DatabaseSync(file, { timeout: 5000 })),
  };
}

function redisStore(): Store {
  const namespace = `test-durable-${crypto.randomUUID()}:`;
  namespaces.push(namespace);
  const evaluator = redisEvaluator({ kind: 'redis', redis });
  return { backend: () => redisQueueBackend(evaluator, namespace), kv: () => redisKvStore(evaluator, namespace) };
}

/** An outbox message as Fedify queues it: one activity to one inbox. */
const outbox = (inbox: string, id = crypto.randomUUID()) => ({ type: 'outbox', id, activityId: 'https://blog.example/blog/a#create', inbox, attempt: 0 });
type Outbox = ReturnType<typeof outbox>;

const until = async (done: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
};
const quiet = { warn: () => undefined };

/** Listens on `queue` with `handler` until told to stop. */
function listening(queue: MessageQueue, handler: (message: unknown) => Promise<void> | void) {
  const controller = new AbortController();
  const done = queue.listen(handler, { signal: controller.signal });
  return {
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

describe.each([
  ['SQLite', sqliteStore],
  ['Redis', redisStore],
])("the fediverse's durable queue on %s", (_name, makeStore) => {
  it('hands a message a stopped process was handling to the next listener, which delivers it; a delivery done is not sent again', async () => {
    const store = makeStore();
    // A process takes a message and dies with it (its lease never renewed, the message never finished).
    const dead = store.backend();
    await dead.put([{ message: outbox('https://a.example/inbox'), due: Date.now() }]);
    const self = `${os.hostname()}/2147483646/gone`;
    expect(await dead.take(Date.now(), self, Date.now() + 300)).toBeDefined();

    const sent: string[] = [];
    const queue = durableQueue(store.backend(), { ledger: deliveryLedger(store.kv()), leaseMs: 300, pollMs: 20, log: quiet });
    const listener = listening(queue, (message) => void sent.push((message as Outbox).inbox));
    await until(() => sent.length === 1);
    expect(sent).toEqual(['https://a.example/inbox']);

    // The same delivery queued again (a fan-out handled again after a crash): skipped.
    await queue.enqueue(outbox('https://a.example/inbox'));
    await queue.enqueue(outbox('https://b.example/inbox'));
    await until(() => sent.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await listener.stop();
    expect(sent).toEqual(['https://a.example/inbox', 'https://b.example/inbox']);
  });

  it("keeps a retry queued during the handler in the message's place, not marked delivered, and sends it until it is taken", async () => {
    const store = makeStore();
    const queue = durableQueue(store.backend(), { ledger: deliveryLedger(store.kv()), pollMs: 20, log: quiet });
    const attempts: number[] = [];
    const listener = listening(queue, async (message) => {
      const fedify = message as Outbox;
      attempts.push(fedify.attempt);
      // The inbox answers 503 twice; Fedify queues the same message again, one attempt more.
      if (fedify.attempt < 2) {
        deliveryHooks.failed(new Error('503'));
        await queue.enqueue({ ...fedify, attempt: fedify.attempt + 1 }, { delay: Temporal.Duration.from({ milliseconds: 30 }) });
      }
    });
    await queue.enqueue(outbox('https://slow.example/inbox'));
    await until(() => attempts.length === 3);
    await queue.enqueue(outbox('https://slow.example/inbox'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await listener.stop();
    expect(attempts).toEqual([0, 1, 2]);
  });

  it('says once that a server was given up, when its delivery fails without a retry', async () => {
    const store = makeStore();
    const lines: string[] = [];
    const queue = durableQueue(store.backend(), { ledger: deliveryLedger(store.kv()), pollMs: 20, log: { warn: (line: string) => void lines.push(line) } });
    let handled = 0;
    const listener = listening(queue, async (message) => {
      handled += 1;
      const fedify = message as Outbox;
      deliveryHooks.failed(new Error('connect ECONNREFUSED'));
      if (fedify.attempt < 3) await queue.enqueue({ ...fedify, attempt: fedify.attempt + 1 });
    });
    await queue.enqueue(outbox('https://dead.example/inbox'));
    await until(() => handled === 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await listener.stop();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/gave up delivering https:\/\/blog\.example\/blog\/a#create to https:\/\/dead\.example\/inbox after 4 attempts .*ECONNREFUSED/);
  });

  it('lets the messages being handled finish at a stop, takes no new one, and leaves the rest for the next listener', async () => {
    const store = makeStore();
    const queue = durableQueue(store.backend(), { ledger: deliveryLedger(store.kv()), pollMs: 20, concurrency: 2, log: quiet });
    const started: string[] = [];
    const finished: string[] = [];
    const listener = listening(queue, async (message) => {
      const { inbox } = message as Outbox;
      started.push(inbox);
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished.push(inbox);
    });
    for (let n = 0; n < 6; n += 1) await queue.enqueue(outbox(`https://${n}.example/inbox`));
    await until(() => started.length === 2);
    await listener.stop();
    expect(finished.sort()).toEqual(started.sort());
    expect(started).toHaveLength(2);

    const rest: string[] = [];
    const next = durableQueue(store.backend(), { ledger: deliveryLedger(store.kv()), pollMs: 20, log: quiet });
    const again = listening(next, (message) => void rest.push((message as Outbox).inbox));
    await until(() => rest.length === 4);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await again.stop();
    expect([...started, ...rest].sort()).toEqual(Array.from({ length: 6 }, (_, n) => `https://${n}.example/inbox`).sort());
  });

  it('hands each message to one of two listeners on the same store, a delayed one after its delay', async () => {
    const store = makeStore();
    const handled: { message: unknown; at: number }[] = [];
    const queues = [0, 1].map(() => durableQueue(store.backend(), { ledger: deliveryLedger(store.kv()), pollMs: 20, log: quiet }));
    const listeners = queues.map((queue) => listening(queue, (message) => void handled.push({ message, at: Date.now() })));
    const queuedAt = Date.now();
    await queues[0]!.enqueue({ type: 'inbox', id: 'later' }, { delay: Temporal.Duration.from({ milliseconds: 300 }) });
    for (let n = 0; n < 30; n += 1) await queues[n % 2]!.enqueue(outbox(`https://${n}.example/inbox`));
    await until(() => handled.length === 31);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Promise.all(listeners.map((listener) => listener.stop()));
    expect(handled).toHaveLength(31);
    const inboxes = handled.map((entry) => (entry.message as Outbox).inbox).filter(Boolean);
    expect(new Set(inboxes).size).toBe(30);
    const later = handled.find((entry) => (entry.message as { id: string }).id === 'later');
    expect(later!.at - queuedAt).toBeGreaterThanOrEqual(300);
  });
});

/** An HTTP server on loopback with `handler`; resolves with its URL. */
async function serving(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('a send made while a queued message is handled', () => {
  it('is abandoned after sendTimeoutMs when the inbox never answers, as a failed send, and the next message is sent; a fetch outside the queue is left alone', async () => {
    // An inbox that takes the connection and never answers; how long each request waited before its sender closed it.
    const waited: number[] = [];
    const hung = await serving((_req, res) => {
      const at = Date.now();
      res.once('close', () => waited.push(Date.now() - at));
    });
    const answering = await serving((_req, res) => res.writeHead(202).end());
    const lines: string[] = [];
    const store = sqliteStore();
    const queue = durableQueue(store.backend(), {
      ledger: deliveryLedger(store.kv()),
      pollMs: 20,
      concurrency: 1,
      sendTimeoutMs: 300,
      log: { warn: (line: string) => void lines.push(line) },
    });
    const outcomes: string[] = [];
    const listener = listening(queue, async (message) => {
      const { inbox } = message as Outbox;
      try {
        const response = await fetch(inbox, { method: 'POST', body: '{}' });
        outcomes.push(`${inbox} ${response.status}`);
      } catch (error) {
        deliveryHooks.failed(error);
        outcomes.push(`${inbox} failed`);
      }
    });
    try {
      const outside = fetch(`${hung.url}/outside`).then(
        () => 'answered',
        () => 'failed',
      );
      await queue.enqueue(outbox(`${hung.url}/inbox`));
      await queue.enqueue(outbox(`${answering.url}/inbox`));
      await until(() => outcomes.length === 2);
      expect(outcomes).toEqual([`${hung.url}/inbox failed`, `${answering.url}/inbox 202`]);
      expect(waited).toHaveLength(1);
      expect(waited[0]).toBeGreaterThanOrEqual(250);
      expect(waited[0]).toBeLessThan(3000);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/gave up delivering https:\/\/blog\.example\/blog\/a#create to http:\/\/127\.0\.0\.1:\d+\/inbox after 1 attempt \(.*timeout\)/i);
      // The fetch made outside any message has no timeout added: it still waits.
      expect(await Promise.race([outside, new Promise((resolve) => setTimeout(() => resolve('waiting'), 600))])).toBe('waiting');
    } finally {
      await listener.stop();
      for (const { server } of [hung, answering]) {
        server.closeAllConnections();
        server.close();
      }
    }
  });
});
