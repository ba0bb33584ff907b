import type { Database } from '../sqlite-database';
import type { QueueMail } from '../outbox/sqlite';
import type { SupportStore } from './types';

export function sqliteSupport(db: Database, queueMail: QueueMail): SupportStore {
  return {
    async save(message, mails) {
      db.transaction(() => {
        db.prepare('INSERT INTO support_messages (id, name, email, subject, message, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
          message.id,
          message.name,
          message.email,
          message.subject,
          message.message,
          message.createdAt,
        );
        for (const mail of mails) queueMail(mail, message.createdAt);
      })();
    },
  };
}
