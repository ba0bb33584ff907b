import { handlersFor } from '@/lib/http/write-route';
import { unsubscribeRoute } from '@/lib/write-routes/unsubscribe';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(unsubscribeRoute);
