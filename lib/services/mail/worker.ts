import { describeError } from '../../log';
import { singlePass } from '../single-pass';
import type { Store } from '../store';
import type { Settings } from '../../settings';
import type { MailTransport } from './transport';

/**
 * Sends mail from the store's outbox: due messages are claimed for a while
 * (a crashed sender's claims come back), sent, then marked sent; a failure is
 * retried later with exponential backoff. Stopped, it finishes the message it
 * is sending and gives back the rest of its claims at once; `drain` waits for that. A mail server that is down delays
 * mail and loses none. Sent mail is deleted once it is older than the
 * retention (checked at most once per poll), so old links and texts do not
 * stay in the store.
 */
export type MailWorker = { kick: () => void; stop: () => void; drain: () => Promise<void> };

export function backoffMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 30 * 60 * 1000);
}

/** Starts a worker on `store`, sending by `transport`; it checks the outbox every `pollMs` until stopped. */
export function createMailWorker(
  options: Pick<Settings['mail'], 'pollMs' | 'retryBaseMs' | 'retentionMs'> & {
    store: Pick<Store, 'outbox'>;
    transport: MailTransport;
    leaseMs?: number;
    log?: Pick<Console, 'warn'>;
  },
): MailWorker {
  const { store, transport, pollMs, retryBaseMs, retentionMs } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const log = options.log ?? console;
  let stopped = false;
  let warned = false;
  let purgedAt = -Infinity;

  async function purge(): Promise<void> {
    const now = Date.now();
    if (now - purgedAt < pollMs) return;
    purgedAt = now;
    await store.outbox.purgeSent(now - retentionMs);
  }

  async function pass(): Promise<void> {
    await purge();
    while (!stopped) {
      const due = await store.outbox.claimDue(Date.now(), 20, leaseMs);
      if (due.length === 0) return;
      for (const [index, entry] of due.entries()) {
        if (stopped) {
          // Stopping: the message on the wire was finished; the rest go back for another sender now.
          await store.outbox.release(
            due.slice(index).map((unsent) => unsent.id),
            Date.now(),
          );
          return;
        }
        try {
          // Sent (or written to its durable .eml file) before it is marked sent: a crash in between sends
          // it again once its claim lapses, with the same Message-ID. Delivery is at least once.
          await transport.send(entry.mail, entry.id);
          await store.outbox.markSent(entry.id, Date.now());
          warned = false;
        } catch (error) {
          const attempts = entry.attempts + 1;
          const reason = describeError(error);
          if (!warned) {
            warned = true;
            log.warn(`mail: sending failed (${reason}); retrying with backoff`);
          }
          await store.outbox.retryLater(entry.id, attempts, Date.now() + backoffMs(attempts, retryBaseMs), reason);
        }
      }
    }
  }

  const passes = singlePass(pass, {
    failed: (error) => log.warn(`mail: outbox unavailable (${describeError(error)})`),
    stopped: () => stopped,
  });
  const kick = passes.kick;

  const timer = setInterval(kick, pollMs);
  timer.unref();
  kick();
  return {
    kick,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    drain: passes.idle,
  };
}
