import { handlersFor } from '@/lib/http/write-route';
import { specialOfferCheckoutRoute } from '@/lib/write-routes/special-offer-checkout';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(specialOfferCheckoutRoute);
