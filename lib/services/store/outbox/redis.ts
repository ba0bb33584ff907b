import { randomUUID } from 'node:crypto';
import type { ScriptRunner } from '../../../redis/lua';
import { CLAIM, MARK_FAILED, MARK_SENT, PURGE_SENT, RELEASE, RENEW, RETRY_LATER } from './redis-scripts';
import type { OutboxEntry, OutboxStore, OutgoingMail } from './types';

const PURGE_BATCH = 500;

/** The arguments of a script that queues mails with `queueMails`: the mails, and an id for each. */
export function mailArgs(mails: OutgoingMail[]): { mails: string; mailIds: string } {
  return { mails: JSON.stringify(mails), mailIds: JSON.stringify(mails.map(() => randomUUID())) };
}

/** `upgraded` resolves once older data is upgraded (sent mail indexed), before a purge. */
export function redisOutbox(run: ScriptRunner, upgraded: () => Promise<void>): OutboxStore {
  return {
    async claimDue({ now, limit, leaseMs, claim }) {
      const rows = (await run(CLAIM, { keys: { outbox: 'outbox', mailPrefix: 'mail:' }, args: { now, limit, leaseMs, claim } })) as [
        string,
        string,
        string,
        string | false | null,
      ][];
      return rows.map(([id, mail, attempts, created]): OutboxEntry => ({
        id,
        mail: JSON.parse(mail) as OutgoingMail,
        attempts: Number(attempts),
        claim,
        createdAt: created ? Number(created) : now,
      }));
    },

    async renew({ ids, claim, now, leaseMs }) {
      if (ids.length === 0) return [];
      const held = await run(RENEW, { keys: { outbox: 'outbox', mailPrefix: 'mail:' }, args: { ids: JSON.stringify(ids), claim, now, leaseMs } });
      return (held as unknown[]).map(String);
    },

    async markSent({ id, claim, now }) {
      return Number(await run(MARK_SENT, { keys: { outbox: 'outbox', mail: `mail:${id}`, sent: 'sent' }, args: { id, claim, now } })) === 1;
    },

    async retryLater({ id, claim, attempts, nextAttemptAt, error }) {
      await run(RETRY_LATER, {
        keys: { outbox: 'outbox', mail: `mail:${id}` },
        args: { id, claim, nextAttemptAt, attempts, lastError: error.slice(0, 500) },
      });
    },

    async markFailed({ id, claim, attempts, now, error }) {
      await run(MARK_FAILED, {
        keys: { outbox: 'outbox', mail: `mail:${id}`, sent: 'sent' },
        args: { id, claim, now, attempts, lastError: error.slice(0, 500) },
      });
    },

    async release({ ids, claim, now }) {
      if (ids.length > 0) await run(RELEASE, { keys: { outbox: 'outbox', mailPrefix: 'mail:' }, args: { now, ids: JSON.stringify(ids), claim } });
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
