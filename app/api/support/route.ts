import { randomUUID } from 'node:crypto';
import { sendSupportMessage, supportAccepted } from '@/lib/forms/support';
import { writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('support', {
  action: sendSupportMessage,
  accepted: () => supportAccepted(randomUUID()),
});
