import { bookingCancelRoute } from './booking-cancel';
import { checkoutRoute } from './checkout';
import { indexNotifyRoute } from './index-notify';
import { specialOfferCheckoutRoute } from './special-offer-checkout';
import { subscribeRoute } from './subscribe';
import { subscribeConfirmRoute } from './subscribe-confirm';
import { supportRoute } from './support';
import { trainingCheckoutRoute } from './training-checkout';
import { unsubscribeRoute } from './unsubscribe';

/**
 * Every write route, one line each. The limiter and the RateLimit headers
 * (lib/limits/table.ts), /openapi.json and the docs page all read this list;
 * a route's file under app/api/ is one call of `handlersFor`.
 */
export const writeRoutes = [
  subscribeRoute,
  supportRoute,
  checkoutRoute,
  trainingCheckoutRoute,
  specialOfferCheckoutRoute,
  bookingCancelRoute,
  indexNotifyRoute,
  subscribeConfirmRoute,
  unsubscribeRoute,
] as const;

export type AnyWriteRoute = (typeof writeRoutes)[number];
export type WriteRoute = AnyWriteRoute['name'];
