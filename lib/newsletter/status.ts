import cliProgress from 'cli-progress';
import type { Store } from '../services/store';
import type { NewsletterRejection, NewsletterSend, SendBounces } from '../services/store/types';

export type CliIo = { out: (line: string) => void; err: (line: string) => void; interactive: boolean };

const when = (millis: number) => new Date(millis).toISOString().replace('T', ' ').slice(0, 16);

/** A text bar of `width` characters for `done` of `total`. */
export function textBar(done: number, total: number, width = 30): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${total === 0 ? 100 : Math.floor((done / total) * 100)}%`;
}

/** The status report: one line per send, newest last, with the bounces and complaints it drew; then the suspended addresses, one a line, with the reason. */
export function statusReport(
  sends: readonly NewsletterSend[],
  rejections: readonly NewsletterRejection[],
  bounces: Readonly<Record<string, SendBounces>> = {},
): string[] {
  const lines =
    sends.length === 0
      ? ['No send yet: a post published after the first run is mailed to the confirmed subscribers.']
      : sends.map(
          (send) =>
            `${send.slug}  started ${when(send.startedAt)} UTC  ${send.state === 'sent' ? `finished ${when(send.finishedAt ?? send.startedAt)} UTC` : 'sending'}  ` +
            `recipients ${send.recipients}  sent ${send.sent}  waiting ${send.waiting}  failed ${send.failed}  skipped ${send.skipped}  ` +
            `bounced ${bounced(bounces[send.slug])}  complaints ${bounces[send.slug]?.complaints ?? 0}` +
            (send.state === 'sending' ? `  ${textBar(send.recipients - send.waiting, send.recipients)}` : ''),
        );
  const suspended = rejections.filter((rejection) => rejection.suspended);
  if (suspended.length === 0) lines.push('No suspended address.');
  else
    lines.push(
      'Suspended (a hard bounce, soft bounces over the limit, or refused permanently twice):',
      ...suspended.map((rejection) => `  ${rejection.email}  ${rejection.lastError}`),
    );
  return lines;
}

const bounced = (counts: SendBounces | undefined) => `${(counts?.hard ?? 0) + (counts?.soft ?? 0)} (hard ${counts?.hard ?? 0}, soft ${counts?.soft ?? 0})`;

const REFRESH_MS = 500;

/**
 * Prints every send; on a terminal, a send in progress then gets a live bar
 * (sent, failed and skipped count as done) until it finishes or Ctrl-C.
 */
export async function watchStatus(store: Store, io: CliIo): Promise<number> {
  const [sends, rejections, bounces] = await Promise.all([store.newsletter.sends(), store.newsletter.rejections(), store.bounces.sendCounts()]);
  for (const line of statusReport(sends, rejections, bounces)) io.out(line);
  const active = sends.find((send) => send.state === 'sending');
  if (!active || !io.interactive) return 0;
  const bar = new cliProgress.SingleBar(
    { format: `${active.slug} [{bar}] {percentage}% | {value}/{total} | waiting {waiting} | failed {failed} | {duration_formatted}`, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(active.recipients, active.recipients - active.waiting, { waiting: active.waiting, failed: active.failed });
  // Ctrl-C ends the watch with the terminal's cursor back.
  process.once('SIGINT', () => {
    bar.stop();
    process.exit(130);
  });
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, REFRESH_MS));
    const now = (await store.newsletter.sends()).find((send) => send.slug === active.slug);
    if (!now) break;
    bar.update(now.recipients - now.waiting, { waiting: now.waiting, failed: now.failed });
    if (now.state === 'sent') break;
  }
  bar.stop();
  return 0;
}
