import { handlersFor } from '@/lib/http/write-route';
import { subscribeRoute } from '@/lib/write-routes/subscribe';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(subscribeRoute);
