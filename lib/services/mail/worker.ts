import type { Clock } from '../../clock';
import { describeError } from '../../log';
import { nodeTimers, type Timers } from '../../publishing/scheduler';
import { CLAIM_OWNER, holdClaim, newClaim } from '../claims';
import { singlePass } from '../single-pass';
import type { Store } from '../store';
import type { Settings } from '../../settings';
import type { OutboxEntry } from '../store/types';
import { newBounceToken } from './envelope';
import { isPermanentFailure, type MailTransport } from './transport';

/**
 * Sends mail from the store's outbox: due messages are claimed for a while
 * (a crashed sender's claims come back) under a claim of this worker's
 * (lib/services/claims.ts), sent, then marked sent; a failure is retried later
 * with exponential backoff. While a batch is under way a heartbeat renews its
 * claims, each message is sent only after the store says the claim still holds
 * it, and it is marked sent only while it does: a message another sender took
 * over is neither sent nor recorded by this one. Stopped, it finishes the
 * message it is sending and gives back the rest of its claims at once; `drain`
 * waits for that. A mail server that is down delays mail and loses none.
 * A message refused permanently (5xx) or failing for longer than `retryForMs` is recorded failed
 * and never tried again. With a bounce address, each message leaves with an envelope sender of its
 * own (lib/services/mail/envelope.ts). Sent
 * mail is deleted once it is older than the retention (checked at most once
 * per poll), so old links and texts do not stay in the store.
 */
export type MailWorker = {
  /** Sends what is due now, then looks again every `pollMs` until stopped. */
  start: () => void;
  /** Looks at the outbox now (a request has just queued mail). */
  kick: () => void;
  stop: () => void;
  drain: () => Promise<void>;
};

export function backoffMs(attempts: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 30 * 60 * 1000);
}

/** A worker on `store`, sending by `transport`: made idle; once started it checks the outbox every `pollMs` until stopped. */
export function createMailWorker(
  options: Pick<Settings['mail'], 'pollMs' | 'retryBaseMs' | 'retentionMs'> &
    Partial<Pick<Settings['mail'], 'retryForMs' | 'bounceAddress'>> & {
      store: Pick<Store, 'outbox' | 'bounces'>;
      transport: MailTransport;
      leaseMs?: number;
      log?: Pick<Console, 'warn'>;
      clock?: Clock;
      timers?: Timers;
      owner?: string;
    },
): MailWorker {
  const { store, transport, pollMs, retryBaseMs, retentionMs, bounceAddress } = options;
  const retryForMs = options.retryForMs ?? 3 * 24 * 60 * 60 * 1000;
  const leaseMs = options.leaseMs ?? 60_000;
  const log = options.log ?? console;
  const clock = options.clock ?? Date.now;
  const timers = options.timers ?? nodeTimers;
  const owner = options.owner ?? CLAIM_OWNER;
  let stopped = false;
  let warned = false;
  let purgedAt = -Infinity;

  async function purge(): Promise<void> {
    const now = clock();
    if (now - purgedAt < pollMs) return;
    purgedAt = now;
    await store.outbox.purgeSent(now - retentionMs);
  }

  async function pass(): Promise<void> {
    await purge();
    while (!stopped) {
      const claim = newClaim(owner);
      const due = await store.outbox.claimDue({ now: clock(), limit: 20, leaseMs, claim });
      if (due.length === 0) return;
      const held = holdClaim(
        due.map((entry) => entry.id),
        {
          leaseMs,
          timers,
          renew: (ids) => store.outbox.renew({ ids, claim, now: clock(), leaseMs }),
          failed: (error) => log.warn(`mail: could not renew a claim (${describeError(error)})`),
        },
      );
      try {
        for (const entry of due) {
          if (stopped) break;
          await sendOne(entry, held.holds(entry.id));
          held.drop(entry.id);
        }
      } finally {
        held.stop();
      }
      // Stopping: the message on the wire was finished; the rest go back for another sender now.
      const unsent = held.held();
      if (unsent.length > 0) await store.outbox.release({ ids: unsent, claim, now: clock() });
    }
  }

  async function sendOne(entry: OutboxEntry, held: boolean): Promise<void> {
    const { id, claim } = entry;
    // The look before sending: the claim still holds it (its lease runs from now again), or another sender has it.
    if (!held || (await store.outbox.renew({ ids: [id], claim, now: clock(), leaseMs })).length === 0) return;
    try {
      // With a bounce address, the message's own bounce token is recorded before it leaves: a bounce names it.
      const bounce = bounceAddress ? newBounceToken() : undefined;
      if (bounce) await store.bounces.issue([{ tokenHash: bounce.hash, email: entry.mail.to.address, mailId: id }], clock());
      // Sent (or written to its durable .eml file) before it is marked sent: a crash in between sends
      // it again once its claim lapses, with the same Message-ID. Delivery is at least once.
      await transport.send(entry.mail, id, bounce?.token);
      if (!(await store.outbox.markSent({ id, claim, now: clock() }))) {
        log.warn('mail: a message was sent after another sender had claimed it; it may arrive twice (same Message-ID)');
      }
      warned = false;
    } catch (error) {
      const attempts = entry.attempts + 1;
      const reason = describeError(error);
      // Refused for good (5xx), or failing for longer than MAIL_RETRY_DAYS: recorded failed, never tried again.
      const permanent = isPermanentFailure(error);
      if (permanent || clock() - entry.createdAt >= retryForMs) {
        log.warn(
          `mail: a message failed for good after ${attempts} attempt${attempts === 1 ? '' : 's'} (${permanent ? 'refused' : 'retried too long'}: ${reason})`,
        );
        await store.outbox.markFailed({ id, claim, attempts, now: clock(), error: reason });
        return;
      }
      if (!warned) {
        warned = true;
        log.warn(`mail: sending failed (${reason}); retrying with backoff`);
      }
      await store.outbox.retryLater({ id, claim, attempts, nextAttemptAt: clock() + backoffMs(attempts, retryBaseMs), error: reason });
    }
  }

  const passes = singlePass(pass, {
    failed: (error) => log.warn(`mail: outbox unavailable (${describeError(error)})`),
    stopped: () => stopped,
  });
  const kick = passes.kick;

  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    start() {
      if (timer || stopped) return;
      timer = setInterval(kick, pollMs);
      timer.unref();
      kick();
    },
    kick,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    // Once stopped and idle, its connection to the mail server is closed (a pooled one holds sockets).
    drain: async () => {
      await passes.idle();
      if (stopped) transport.close?.();
    },
  };
}
