import { randomUUID } from 'node:crypto';
import { config } from '../config';
import { env } from '../env';
import type { WriteResult } from '../http/write-route';
import { supportOwnerMail, supportReceiptMail } from '../services/mail/templates';
import { sendQueuedMail, store } from '../services';
import type { FormInput } from './schemas';

export const SUPPORT_RESULT_PAGE = '/support/sent';

/** Where support messages go: SUPPORT_EMAIL, or support@ the site's host. */
export function supportAddress(): string {
  return env().SUPPORT_EMAIL ?? `support@${new URL(config().siteUrl).hostname}`;
}

export function supportAccepted(id: string): WriteResult {
  return { ok: true, status: 202, body: { status: 'received', id, message: 'Thank you: your message is stored and a receipt is on its way.' }, redirect: SUPPORT_RESULT_PAGE };
}

/** Stores the message with the owner's copy (Reply-To the sender) and the sender's receipt, in one write. */
export async function sendSupportMessage(input: FormInput<'support'>): Promise<WriteResult> {
  const message = { id: randomUUID(), name: input.name, email: input.email.toLowerCase(), subject: input.subject, message: input.message, createdAt: Date.now() };
  await store().support.save(message, [supportOwnerMail(supportAddress(), message), supportReceiptMail(message)]);
  sendQueuedMail();
  return supportAccepted(message.id);
}
