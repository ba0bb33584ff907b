import { describe, expect, it } from 'vitest';
import { FORM_BODY_LIMIT, STRIPE_EVENT_BODY_LIMIT } from '@/lib/routes/manifest';
import { bodyLimit, otherRouteLimits, routeLimits, writeRouteLimits } from '@/lib/limits/table';

describe('the limits table', () => {
  // The spec's published limits (and lectern's own for the two newsletter links); a write route
  // added later comes with its own limit and does not change these.
  it('publishes the limit of every write route', () => {
    expect(writeRouteLimits).toMatchObject({
      subscribe: { path: '/api/subscribe', requests: 5, windowSeconds: 600 },
      support: { path: '/api/support', requests: 5, windowSeconds: 600 },
      checkout: { path: '/api/payments/checkout', requests: 10, windowSeconds: 600 },
      trainingCheckout: { path: '/api/payments/training/checkout', requests: 10, windowSeconds: 600 },
      specialOfferCheckout: { path: '/api/payments/special-offer/checkout', requests: 10, windowSeconds: 600 },
      bookingCancel: { path: '/api/booking/cancel', requests: 20, windowSeconds: 3600 },
      indexNotify: { path: '/api/index-notify', requests: 20, windowSeconds: 3600 },
      postmarkBounces: { path: '/api/bounces/postmark', requests: 300, windowSeconds: 600 },
      subscribeConfirm: { path: '/api/subscribe/confirm', requests: 20, windowSeconds: 3600 },
      unsubscribe: { path: '/api/subscribe/unsubscribe', requests: 120, windowSeconds: 600 },
    });
  });

  it('limits the MCP endpoint (an IPv6 client by its /64), /api/publish, a verified agent on /mcp and /api/search, and the fediverse inbox per address and per server beside them, and nothing else', () => {
    expect(routeLimits).toEqual({
      ...writeRouteLimits,
      mcp: { path: '/mcp', requests: 1200, windowSeconds: 60, ipv6Prefix: 64 },
      publish: { path: '/api/publish', requests: 30, windowSeconds: 600 },
      mcpAgent: { path: '/mcp', requests: 6000, windowSeconds: 60, per: 'agent' },
      searchAgent: { path: '/api/search', requests: 6000, windowSeconds: 60, per: 'agent' },
      fediverseInbox: { path: '/inbox', requests: 1200, windowSeconds: 60, ipv6Prefix: 64 },
      fediverseServer: { path: '/inbox', requests: 600, windowSeconds: 60, per: 'server' },
    });
    expect(otherRouteLimits.mcp).toEqual(routeLimits.mcp);
    expect(otherRouteLimits.publish).toEqual(routeLimits.publish);
  });
});

describe('bodyLimit', () => {
  it.each([
    ['/api/subscribe', FORM_BODY_LIMIT],
    ['/api/index-notify', FORM_BODY_LIMIT],
    ['/api/payments/webhook', STRIPE_EVENT_BODY_LIMIT],
    ['/blog/a-post', undefined],
    ['/api/blog', undefined],
    ['/', undefined],
  ])('%s reads at most %s bytes', (pathname, limit) => {
    expect(bodyLimit(pathname)).toBe(limit);
  });
});
