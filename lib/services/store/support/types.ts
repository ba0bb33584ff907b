import type { OutgoingMail } from '../outbox/types';

export type SupportMessage = { id: string; name: string; email: string; subject: string; message: string; createdAt: number };

export interface SupportStore {
  /** Keeps the message and queues its mails in one write. */
  save(message: SupportMessage, mails: OutgoingMail[]): Promise<void>;
}
