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

/** The most messages the kept folder holds, whatever their size. */
export const KEPT_MAX_FILES = 1000;

/**
 * Keeps a message in `folder` (one .eml file each), for a person to read, while the folder holds
 * less than `maxBytes` and KEPT_MAX_FILES: past either, the new message is not kept (what is there
 * stays for the person to read; junk to the bounce domain cannot fill the disk).
 */
export function keepMessage(folder: string, raw: Buffer, log: Pick<Console, 'warn'> = console, maxBytes = Infinity): void {
  try {
    fs.mkdirSync(folder, { recursive: true });
    const names = fs.readdirSync(folder);
    const bytes = names.reduce((sum, name) => sum + (fs.statSync(path.join(folder, name), { throwIfNoEntry: false })?.size ?? 0), 0);
    if (names.length >= KEPT_MAX_FILES || bytes + raw.length > maxBytes) {
      log.warn(`bounces: a message was not kept: ${folder} is full (${names.length} messages, ${bytes} bytes; BOUNCES_KEPT_MAX_MB)`);
      return;
    }
    fs.writeFileSync(path.join(folder, `${new Date().toISOString().replace(/[:.]/g, '-')}-${Math.random().toString(36).slice(2, 8)}.eml`), raw);
  } catch (error) {
    log.warn(`bounces: could not keep a message (${describeError(error)})`);
  }
}
