import type { Settings } from '../settings';
import { describeError } from '../log';
import type { Newsletter, StepResult } from './sender';

export type BatchSettings = Pick<Settings['newsletter'], 'batchSize' | 'budgetMs'>;

/**
 * The newsletter where no process lives on between requests (platform mode), driven by the cron
 * job's calls of /api/publish: each call sends one batch (NEWSLETTER_BATCH_SIZE messages at most)
 * before it answers, so a host that stops an instance with its response still moves the send on,
 * then batch after batch in `defer` (Next's `after()`) while messages are due and the call's
 * NEWSLETTER_BUDGET_SECONDS last. New posts are looked for first, so the send of a post that went
 * live, or came with a deploy, starts at the first call after. The batches claim as the long-lived
 * sender does: overlapping calls never both send a message, and what a call leaves (its budget
 * spent, its instance stopped) a later call takes up, a stopped instance's claims once their lease
 * ends. `clock` is the newsletter's.
 */
export async function sendBatches(
  newsletter: Pick<Newsletter, 'step'>,
  settings: BatchSettings,
  options: { clock: () => number; defer: (work: () => Promise<void>) => void; log?: Pick<Console, 'warn'> },
): Promise<StepResult> {
  const { clock, defer, log = console } = options;
  const until = clock() + settings.budgetMs;
  const batch = () => newsletter.step({ messages: settings.batchSize, until });
  const first = await batch();
  if (first.more) {
    defer(async () => {
      try {
        for (let last = first; last.more && clock() < until;) last = await batch();
      } catch (error) {
        log.warn(`newsletter: sending paused (${describeError(error)}); the next cron call goes on`);
      }
    });
  }
  return first;
}
