import { randomUUID } from 'node:crypto';
import type { ScriptRunner } from '../lua';
import { CLAIM, MARK_SENT, PURGE_SENT, RELEASE, RETRY_LATER } from './redis-scripts';
import type { OutboxEntry, OutboxStore, OutgoingMail } from './types';

const PURGE_BATCH = 500;

/** The arguments of a script that queues mails with `queueMails`: the mails, and an id for each. */
export function mailArgs(mails: OutgoingMail[]): { mails: string; mailIds: string } {
  return { mails: JSON.stringify(mails), mailIds: JSON.stringify(mails.map(() => randomUUID())) };
}

/** `upgraded` resolves once older data is upgraded (sent mail indexed), before a purge. */
export function redisOutbox(run: ScriptRunner, upgraded: () => Promise<void>): OutboxStore {
  return {
    async claimDue(now, limit, leaseMs) {
      const rows = (await run(CLAIM, { keys: { outbox: 'outbox', mailPrefix: 'mail:' }, args: { now, limit, leaseMs } })) as [string, string, string][];
      return rows.map(([id, mail, attempts]): OutboxEntry => ({ id, mail: JSON.parse(mail) as OutgoingMail, attempts: Number(attempts) }));
    },

    async markSent(id, now) {
      await run(MARK_SENT, { keys: { outbox: 'outbox', mail: `mail:${id}`, sent: 'sent' }, args: { id, now } });
    },

    async retryLater(id, attempts, nextAttemptAt, error) {
      await run(RETRY_LATER, { keys: { outbox: 'outbox', mail: `mail:${id}` }, args: { id, nextAttemptAt, attempts, lastError: error.slice(0, 500) } });
    },

    async release(ids, now) {
      if (ids.length > 0) await run(RELEASE, { keys: { outbox: 'outbox' }, args: { now, ids: JSON.stringify(ids) } });
    },

    async purgeSent(sentBefore) {
      await upgraded();
      let purged = 0;
      for (;;) {
        const count = Number(await run(PURGE_SENT, { keys: { sent: 'sent', mailPrefix: 'mail:' }, args: { sentBefore, batch: PURGE_BATCH } }));
        purged += count;
        if (count < PURGE_BATCH) return purged;
      }
    },
  };
}
