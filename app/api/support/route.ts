import { handlersFor } from '@/lib/http/write-route';
import { supportRoute } from '@/lib/write-routes/support';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(supportRoute);
