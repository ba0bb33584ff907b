/*
 * Every write route, one line each: a new route is its file in this folder and its line here.
 * The handler at app/api/[...path]/route.ts answers each at its path; the limiter, the
 * RateLimit headers, /openapi.json, the docs page and the agent files read the list
 * (./index.ts).
 */
export { bookingCancelRoute } from './booking-cancel';
export { bookingMoveRoute } from './booking-move';
export { checkoutRoute } from './checkout';
export { downloadsResendRoute } from './downloads-resend';
export { indexNotifyRoute } from './index-notify';
export { postmarkBouncesRoute } from './postmark-bounces';
export { specialOfferCheckoutRoute } from './special-offer-checkout';
export { subscribeRoute } from './subscribe';
export { subscribeConfirmRoute } from './subscribe-confirm';
export { supportRoute } from './support';
export { trainingCheckoutRoute } from './training-checkout';
export { unsubscribeRoute } from './unsubscribe';
