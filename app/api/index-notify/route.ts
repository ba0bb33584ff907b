import { handlersFor } from '@/lib/http/write-route';
import { indexNotifyRoute } from '@/lib/write-routes/index-notify';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(indexNotifyRoute);
