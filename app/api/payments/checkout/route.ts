import { handlersFor } from '@/lib/http/write-route';
import { checkoutRoute } from '@/lib/write-routes/checkout';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(checkoutRoute);
