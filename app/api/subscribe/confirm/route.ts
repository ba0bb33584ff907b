import { handlersFor } from '@/lib/http/write-route';
import { subscribeConfirmRoute } from '@/lib/write-routes/subscribe-confirm';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(subscribeConfirmRoute);
