import { authorizeIndexNotify, notifyIndexNow } from '@/lib/forms/index-notify';
import { writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('indexNotify', {
  authorize: authorizeIndexNotify,
  optionalBody: true,
  action: notifyIndexNow,
  accepted: () => ({ ok: true, status: 200, body: { submitted: 0 }, redirect: '/' }),
});
