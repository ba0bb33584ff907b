/**
 * The published limits of the write routes: per client IP, per route, sliding
 * window. The limiter, the RateLimit-Policy header and /openapi.json all read
 * this table. The newsletter's links post to the last two: a person confirms
 * once, and mail providers send the one-click unsubscribes of many readers
 * from a few shared addresses.
 */
export const writeRouteLimits = {
  subscribe: { path: '/api/subscribe', requests: 5, windowSeconds: 10 * 60 },
  support: { path: '/api/support', requests: 5, windowSeconds: 10 * 60 },
  checkout: { path: '/api/payments/checkout', requests: 10, windowSeconds: 10 * 60 },
  trainingCheckout: { path: '/api/payments/training/checkout', requests: 10, windowSeconds: 10 * 60 },
  specialOfferCheckout: { path: '/api/payments/special-offer/checkout', requests: 10, windowSeconds: 10 * 60 },
  bookingCancel: { path: '/api/booking/cancel', requests: 20, windowSeconds: 60 * 60 },
  indexNotify: { path: '/api/index-notify', requests: 20, windowSeconds: 60 * 60 },
  subscribeConfirm: { path: '/api/subscribe/confirm', requests: 20, windowSeconds: 60 * 60 },
  unsubscribe: { path: '/api/subscribe/unsubscribe', requests: 120, windowSeconds: 10 * 60 },
} as const;

export type WriteRoute = keyof typeof writeRouteLimits;
export const writeRoutes = Object.keys(writeRouteLimits) as WriteRoute[];

/**
 * Routes that change nothing yet are limited like the write routes, because
 * every call is a POST that the read cache cannot answer: the MCP endpoint,
 * generously, since one conversation makes many calls.
 */
export const otherRouteLimits = {
  mcp: { path: '/mcp', requests: 120, windowSeconds: 60 },
} as const;

/** Every limited route: the write routes and the others above. The limiter and the RateLimit headers read this. */
export const routeLimits = { ...writeRouteLimits, ...otherRouteLimits } as const;
export type LimitedRoute = keyof typeof routeLimits;
