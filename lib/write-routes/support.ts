import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { supportOwnerMail, supportReceiptMail } from '../services/mail/templates';
import { email, honeypot, line, required } from './fields';
import { defineWriteRoute, type WriteContext, type WriteResult } from './definition';
import { writeRouteAddresses } from '../routes/manifest';
import type { Settings } from '../settings';

export const SUPPORT_RESULT_PAGE = '/support/sent';

/** Where support messages go: SUPPORT_EMAIL, or support@ the site's host. */
function supportAddress({ mail, site }: Pick<Settings, 'mail' | 'site'>): string {
  return mail.supportEmail ?? `support@${new URL(site.url).hostname}`;
}

function supportAccepted(id: string): WriteResult {
  return {
    ok: true,
    status: 202,
    body: { status: 'received', id, message: 'Thank you: your message is stored and a receipt is on its way.' },
    redirect: SUPPORT_RESULT_PAGE,
  };
}

const schema = z.strictObject({
  name: line(100),
  email,
  subject: line(150),
  message: z.string(required('text')).trim().min(1, 'must not be empty').max(5000, 'must be at most 5000 characters'),
  website: honeypot,
});

/** Stores the message with the owner's copy (Reply-To the sender) and the sender's receipt, in one write. */
async function sendSupportMessage(input: z.output<typeof schema>, { services, settings }: WriteContext): Promise<WriteResult> {
  const message = {
    id: randomUUID(),
    name: input.name,
    email: input.email.toLowerCase(),
    subject: input.subject,
    message: input.message,
    createdAt: Date.now(),
  };
  await services.store.support.save(message, [supportOwnerMail(supportAddress(settings), message), supportReceiptMail(message)]);
  services.mail.sendQueued();
  return supportAccepted(message.id);
}

export const supportRoute = defineWriteRoute({
  route: writeRouteAddresses.support,
  handle: { schema, honeypot: () => supportAccepted(randomUUID()), action: sendSupportMessage },
  docs: { summary: 'Send a support message to the site owner.' },
});
