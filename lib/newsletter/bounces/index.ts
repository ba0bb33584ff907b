import fs from 'node:fs';
import path from 'node:path';
import { describeError } from '../../log';
import type { SoftBouncePolicy, Store } from '../../services/store/types';
import { hashToken } from '../../services/tokens';
import { readReport } from './report';

/** What became of one message that came back: acted on (or a repeat of one that was), or kept for a person to read. */
export type Handled = { kept: boolean; reason?: string };

/** Handles one message that came to the bounce address, by whatever road (listener, IMAP, webhook). Never throws on what the message says. */
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
    const report = await readReport(raw, bounceAddress, envelopeTo);
    if (!report.readable) {
      log.warn(`bounces: a message was kept unread: ${report.reason}`);
      return { kept: true, reason: report.reason };
    }
    if (!report.token) {
      log.warn(`bounces: a ${report.kind === 'complaint' ? 'complaint' : `${report.kind} bounce`} names no message of ours (no bounce token); kept`);
      return { kept: true, reason: 'no bounce token' };
    }
    const outcome = await store.bounces.record({
      tokenHash: hashToken(report.token),
      reportId: report.reportId,
      kind: report.kind,
      detail: report.detail,
      now: clock(),
      soft,
    });
    if (!outcome.matched) {
      log.warn(`bounces: a ${report.kind === 'complaint' ? 'complaint' : `${report.kind} bounce`} has a bounce token no message of ours carried; kept`);
      return { kept: true, reason: 'unknown bounce token' };
    }
    const about = outcome.slug ? `a reader of "${outcome.slug}"` : 'a form mail';
    if (outcome.action !== 'duplicate')
      log.log(`bounces: ${report.kind === 'complaint' ? 'complaint' : `${report.kind} bounce`} from ${about}: ${outcome.action} (${report.detail})`);
    return { kept: false };
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
