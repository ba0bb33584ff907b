import type { BounceOutcome, SoftBouncePolicy, Store } from '../../services/store/types';
import { hashToken } from '../../services/tokens';
import type { Report } from './report';

/** What became of one report: acted on (or a repeat of one that was), or kept for a person to read. */
export type Handled = { kept: boolean; reason?: string; action?: Extract<BounceOutcome, { matched: true }>['action'] };

/**
 * Records one readable report, by whatever road it came (a message read by createBounceHandler, a
 * provider's webhook), against the message its bounce token names, and logs what it did. A report
 * without a token, or with one no message carried, is logged (never with an address) and `kept`.
 */
export async function recordReport(
  report: Pick<Extract<Report, { readable: true }>, 'kind' | 'token' | 'detail' | 'reportId'>,
  options: { store: Pick<Store, 'bounces'>; soft: SoftBouncePolicy; clock: () => number; log: Pick<Console, 'log' | 'warn'> },
): Promise<Handled> {
  const { store, soft, clock, log } = options;
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
  return { kept: false, action: outcome.action };
}
