/**
 * The published limits of the write routes (SPEC.md, "Limits"): per client IP,
 * per route, sliding window. The limiter, the RateLimit-Policy header and
 * /openapi.json all read this table.
 */
export const writeRouteLimits = {
  subscribe: { path: '/api/subscribe', requests: 5, windowSeconds: 10 * 60 },
  support: { path: '/api/support', requests: 5, windowSeconds: 10 * 60 },
  checkout: { path: '/api/payments/checkout', requests: 10, windowSeconds: 10 * 60 },
  trainingCheckout: { path: '/api/payments/training/checkout', requests: 10, windowSeconds: 10 * 60 },
  specialOfferCheckout: { path: '/api/payments/special-offer/checkout', requests: 10, windowSeconds: 10 * 60 },
  bookingCancel: { path: '/api/booking/cancel', requests: 20, windowSeconds: 60 * 60 },
  indexNotify: { path: '/api/index-notify', requests: 20, windowSeconds: 60 * 60 },
} as const;

export type WriteRoute = keyof typeof writeRouteLimits;
export const writeRoutes = Object.keys(writeRouteLimits) as WriteRoute[];
