import { handlersFor } from '@/lib/http/write-route';
import { trainingCheckoutRoute } from '@/lib/write-routes/training-checkout';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(trainingCheckoutRoute);
