import fs from 'node:fs';
import path from 'node:path';
import { describeError } from '../../log';
import type { SoftBouncePolicy, Store } from '../../services/store/types';
import { recordReport, type Handled } from './record';

export type { Handled } from './record';

/** Handles one message that came to the bounce address, by the listener or the IMAP poller. Never throws on what the message says. */
export type BounceHandler = (raw: Buffer, envelopeTo?: readonly string[]) => Promise<Handled>;

/**
 * Reads what came back (lib/newsletter/bounces/report.ts) and records it against the message its
 * VERP token names (the store acts on it: README, "Bounces and complaints"). A message that cannot
 * be read, or names no message lectern sent, is logged (never with an address) and reported as
 * `kept`: the road it came by keeps it for a person.
 */
export function createBounceHandler(options: {
  store: Pick<Store, 'bounces'>;
  bounceAddress: string;
  soft: SoftBouncePolicy;
  clock?: () => number;
  log?: Pick<Console, 'log' | 'warn'>;
}): BounceHandler {
  const { store, bounceAddress, soft } = options;
  const clock = options.clock ?? Date.now;
  const log = options.log ?? console;
  return async (raw, envelopeTo = []) => {
    // mailparser is loaded with the first message that comes back, not with the server.
    const { readReport } = await import('./report');
    const report = await readReport(raw, bounceAddress, envelopeTo);
    if (!report.readable) {
      log.warn(`bounces: a message was kept unread: ${report.reason}`);
      return { kept: true, reason: report.reason };
    }
    return recordReport(report, { store, soft, clock, log });
  };
}

/** Keeps a message in `folder` (one .eml file each), for a person to read. */
export function keepMessage(folder: string, raw: Buffer, log: Pick<Console, 'warn'> = console): void {
  try {
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, `${new Date().toISOString().replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 8)}.eml`), raw);
  } catch (error) {
    log.warn(`bounces: could not keep a message (${describeError(error)})`);
  }
}
