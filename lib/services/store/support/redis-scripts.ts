import { luaScript } from '../../../redis/lua';
import { QUEUE_MAILS } from '../outbox/redis-scripts';

export const SAVE_SUPPORT_MESSAGE = luaScript(
  {
    keys: ['entry', 'entries', 'mailPrefix', 'outbox'],
    args: ['id', 'name', 'email', 'subject', 'message', 'createdAt', 'mails', 'mailIds'],
  },
  QUEUE_MAILS,
  `
redis.call('HSET', entry, 'id', id, 'name', name, 'email', email, 'subject', subject, 'message', message, 'created', createdAt)
redis.call('ZADD', entries, createdAt, id)
queueMails(mailPrefix, outbox, mails, mailIds, createdAt)
return 1`,
);
