import type { ScriptRunner } from '../../../redis/lua';
import { mailArgs } from '../outbox/redis';
import { hashFields } from '../redis-hash';
import { CONFIRM, CONFIRMATION_STATE, LIST_SUBSCRIBERS, SUBSCRIBE, UNSUBSCRIBE, WELCOME } from './redis-scripts';
import type { ConfirmationState, Subscriber, SubscriberStatus, SubscriberStore } from './types';

function toSubscriber(hash: Record<string, string>): Subscriber {
  return {
    email: hash.email ?? '',
    ...(hash.name ? { name: hash.name } : {}),
    status: (hash.status ?? 'pending') as SubscriberStatus,
    createdAt: Number(hash.created),
    ...(hash.confirmed ? { confirmedAt: Number(hash.confirmed) } : {}),
  };
}

/** `upgraded` resolves once older data is upgraded (unsubscribe tokens hashed), before an unsubscribe. */
export function redisSubscribers(run: ScriptRunner, upgraded: () => Promise<void>): SubscriberStore {
  return {
    async subscribe({ email, name, confirmTokenHash, unsubscribeTokenHash, now, resend, mail }) {
      const mailed = await run(SUBSCRIBE, {
        keys: {
          subscriber: `subscriber:${email}`,
          confirmTokenPrefix: 'confirm-token:',
          unsubscribeTokenPrefix: 'unsubscribe-token:',
          subscribers: 'subscribers',
          mailPrefix: 'mail:',
          outbox: 'outbox',
        },
        args: { email, name: name ?? '', confirmHash: confirmTokenHash, unsubscribeHash: unsubscribeTokenHash, now, ...resend, ...mailArgs([mail]) },
      });
      return Number(mailed) === 1;
    },

    async welcome({ email, unsubscribeTokenHash, now, mail }) {
      const queued = await run(WELCOME, {
        keys: { subscriber: `subscriber:${email}`, unsubscribeTokenPrefix: 'unsubscribe-token:', mailPrefix: 'mail:', outbox: 'outbox' },
        args: { email, unsubscribeHash: unsubscribeTokenHash, now, ...mailArgs([mail]) },
      });
      return Number(queued) === 1;
    },

    async confirmationState(confirmTokenHash, issuedAfter) {
      const result = await run(CONFIRMATION_STATE, {
        keys: { confirmToken: `confirm-token:${confirmTokenHash}`, subscriberPrefix: 'subscriber:' },
        args: { confirmHash: confirmTokenHash, issuedAfter },
      });
      return typeof result === 'string' ? (result as ConfirmationState) : undefined;
    },

    async confirm(confirmTokenHash, now, issuedAfter) {
      const result = await run(CONFIRM, {
        keys: { confirmToken: `confirm-token:${confirmTokenHash}`, subscriberPrefix: 'subscriber:' },
        args: { confirmHash: confirmTokenHash, now, issuedAfter },
      });
      if (result === 'expired') return { state: 'expired' };
      return result ? { state: 'confirmed', subscriber: toSubscriber(hashFields(result)) } : undefined;
    },

    async unsubscribe(unsubscribeTokenHash, now) {
      await upgraded();
      const result = await run(UNSUBSCRIBE, {
        keys: { unsubscribeToken: `unsubscribe-token:${unsubscribeTokenHash}`, subscriberPrefix: 'subscriber:', confirmTokenPrefix: 'confirm-token:' },
        args: { now },
      });
      return result ? toSubscriber(hashFields(result)) : undefined;
    },

    async list() {
      const rows = (await run(LIST_SUBSCRIBERS, { keys: { subscribers: 'subscribers', subscriberPrefix: 'subscriber:' } })) as unknown[];
      return rows.map((row) => toSubscriber(hashFields(row)));
    },
  };
}
