import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Email } from 'postal-mime';
import { parseSettings, type EnvSource } from '@/lib/settings';
import { createServices, type Services } from '@/lib/runtime';
import { sqliteStoredData, type StoredData } from './stored';
import { outboxMail } from './write-routes';

/** The services of one test file, as the entry points make them (lib/runtime/index.ts), and what they kept and sent. */
export type TestServices = {
  services: Services;
  /** Runs what the requests so far handed to `after` (the sending of the mail they queued), as Next does once a response is sent. */
  afterResponse(): Promise<void>;
  /** Every message the mail worker has written to the outbox folder so far, oldest first. */
  outboxMail(): Promise<Email[]>;
  /** What the store has kept, read straight from its file. */
  storedData(): StoredData;
};

/**
 * Services made from `settings` alone (not the process's environment): a SQLite store in a
 * folder of its own, mail written to the outbox folder there, the limiter in memory, and
 * Stripe when `settings` give a key (a stand-in's, `startStripeStandIn`).
 */
export function testServices(settings: EnvSource = {}): TestServices {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-services-'));
  const tasks: (() => Promise<void>)[] = [];
  const services = createServices(parseSettings({ SITE_URL: 'http://localhost:3000', DATA_DIR: dataDir, ...settings }), {
    afterResponse: (task) => tasks.push(task),
  });
  return {
    services,
    async afterResponse() {
      for (const task of tasks.splice(0)) await task();
    },
    outboxMail: () => outboxMail(path.join(dataDir, 'outbox')),
    storedData: () => sqliteStoredData(path.join(dataDir, 'lectern.db')),
  };
}
