import { CONFIRMED_PAGE, confirmSubscription } from '@/lib/forms/subscribe';
import { writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('subscribeConfirm', {
  action: confirmSubscription,
  accepted: () => ({ ok: true, status: 200, body: { status: 'confirmed' }, redirect: CONFIRMED_PAGE }),
});
