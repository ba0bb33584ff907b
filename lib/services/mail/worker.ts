import { after } from 'next/server';
import { describeError } from '../../log';
import { store } from '../store';
import { mailSettings } from './settings';
import { createTransport, type MailTransport } from './transport';

/**
 * Sends mail from the store's outbox: due messages are claimed for a while
 * (a crashed sender's claims come back), sent, then marked sent; a failure is
 * retried later with exponential backoff. A mail server that is down delays
 * mail and loses none. Sent mail is deleted once it is older than the
 * retention (checked at most once per poll), so old links and texts do not
 * stay in the store.
 */
export type MailWorker = { kick: () => void; stop: () => void; drain: () => Promise<void> };

const GLOBAL_KEY = Symbol.for('lectern.mail-worker');
type Holder = { [GLOBAL_KEY]?: MailWorker };

export function backoffMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 30 * 60 * 1000);
}

export function createMailWorker(
  options: { transport?: MailTransport; pollMs?: number; retryBaseMs?: number; retentionMs?: number; leaseMs?: number; log?: Pick<Console, 'warn'> } = {},
): MailWorker {
  const settings = mailSettings();
  const transport = options.transport ?? createTransport();
  const pollMs = options.pollMs ?? settings.pollMs;
  const retryBaseMs = options.retryBaseMs ?? settings.retryBaseMs;
  const retentionMs = options.retentionMs ?? settings.retentionMs;
  const leaseMs = options.leaseMs ?? 60_000;
  const log = options.log ?? console;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let warned = false;
  let purgedAt = -Infinity;

  async function purge(): Promise<void> {
    const now = Date.now();
    if (now - purgedAt < pollMs) return;
    purgedAt = now;
    await store().outbox.purgeSent(now - retentionMs);
  }

  async function pass(): Promise<void> {
    await purge();
    for (;;) {
      const due = await store().outbox.claimDue(Date.now(), 20, leaseMs);
      if (due.length === 0) return;
      for (const entry of due) {
        try {
          await transport.send(entry.mail);
          await store().outbox.markSent(entry.id, Date.now());
          warned = false;
        } catch (error) {
          const attempts = entry.attempts + 1;
          const reason = describeError(error);
          if (!warned) {
            warned = true;
            log.warn(`mail: sending failed (${reason}); retrying with backoff`);
          }
          await store().outbox.retryLater(entry.id, attempts, Date.now() + backoffMs(attempts, retryBaseMs), reason);
        }
      }
    }
  }

  function kick(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass()
      .catch((error: unknown) => log.warn(`mail: outbox unavailable (${describeError(error)})`))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  const timer = setInterval(kick, pollMs);
  timer.unref();
  kick();
  return {
    kick,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    drain: async () => {
      while (running) await running;
    },
  };
}

/** The process's mail worker, started once. */
export function mailWorker(): MailWorker {
  const holder = globalThis as Holder;
  holder[GLOBAL_KEY] ??= createMailWorker();
  return holder[GLOBAL_KEY];
}

/**
 * Sends the mail a request has just queued, now. A host that ends a request's
 * work with its response (a platform's short-lived instance) is asked to wait
 * until the sending is done (`after`); on a long-lived server this changes nothing.
 */
export function sendQueuedMail(): void {
  const worker = mailWorker();
  worker.kick();
  after(() => worker.drain());
}
