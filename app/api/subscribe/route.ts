import { subscribe, subscribeAccepted } from '@/lib/forms/subscribe';
import { writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('subscribe', {
  action: subscribe,
  accepted: subscribeAccepted,
});
