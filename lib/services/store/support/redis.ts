import type { ScriptRunner } from '../../../redis/lua';
import { mailArgs } from '../outbox/redis';
import { SAVE_SUPPORT_MESSAGE } from './redis-scripts';
import type { SupportStore } from './types';

export function redisSupport(run: ScriptRunner): SupportStore {
  return {
    async save(message, mails) {
      await run(SAVE_SUPPORT_MESSAGE, {
        keys: { entry: `support:${message.id}`, entries: 'support', mailPrefix: 'mail:', outbox: 'outbox' },
        args: {
          id: message.id,
          name: message.name,
          email: message.email,
          subject: message.subject,
          message: message.message,
          createdAt: message.createdAt,
          ...mailArgs(mails),
        },
      });
    },
  };
}
