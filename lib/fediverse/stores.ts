import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { KvStore, MessageQueue } from '@fedify/fedify';
import { SqliteKvStore } from '@fedify/sqlite';
import { deliveryLedger, durableQueue, type DurableQueueOptions } from './durable-queue';
import { sqliteQueueBackend } from './durable-stores';

/** Fedify's key–value store (keys, followers, its caches) and its message queue (outgoing and incoming activities), and how to close them. */
export type FediverseStores = { kv: KvStore; queue: MessageQueue; close: () => void };

/** The file under DATA_DIR that holds them, beside the embedded store's lectern.db. */
export const FEDIVERSE_DB = 'fediverse.db';

/**
 * Fedify's store and queue on SQLite (`@fedify/sqlite`, Node's own `node:sqlite`), in a file of
 * their own under DATA_DIR: the queue is durable (./durable-queue.ts: a message is kept until it is
 * handled, so one queued or being sent when the process stops is sent by the next run, and a
 * delivery already done is not sent again), and Fedify's cache of remote documents churns there,
 * not in lectern.db.
 * A statement waits up to 5 s for another connection's write lock, as the embedded store's do.
 */
export function sqliteFediverseStores(dataDir: string, queueOptions: Pick<DurableQueueOptions, 'sendTimeoutMs'> = {}): FediverseStores {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new DatabaseSync(path.join(dataDir, FEDIVERSE_DB), { timeout: 5000 });
  db.exec('PRAGMA journal_mode=WAL');
  // Commits without an fsync each (WAL's NORMAL: the WAL is synced at checkpoints): every send
  // commits twice (the queue's take and the remembered signature spec), and node:sqlite is
  // synchronous, so each fsync held the server's readers up. A commit survives a crash of the
  // process; only a crash of the machine may lose the last ones (a delivery sent again, or dropped).
  db.exec('PRAGMA synchronous=NORMAL');
  const kv = new SqliteKvStore(db);
  const queue = durableQueue(sqliteQueueBackend(db), { ...queueOptions, ledger: deliveryLedger(kv) });
  return { kv, queue, close: () => db.close() };
}
