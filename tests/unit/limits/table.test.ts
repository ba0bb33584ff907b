import { describe, expect, it } from 'vitest';
import { otherRouteLimits, routeLimits, writeRouteLimits } from '@/lib/limits/table';

describe('the limits table', () => {
  it('publishes the limit of every write route', () => {
    expect(writeRouteLimits).toEqual({
      subscribe: { path: '/api/subscribe', requests: 5, windowSeconds: 600 },
      support: { path: '/api/support', requests: 5, windowSeconds: 600 },
      checkout: { path: '/api/payments/checkout', requests: 10, windowSeconds: 600 },
      trainingCheckout: { path: '/api/payments/training/checkout', requests: 10, windowSeconds: 600 },
      specialOfferCheckout: { path: '/api/payments/special-offer/checkout', requests: 10, windowSeconds: 600 },
      bookingCancel: { path: '/api/booking/cancel', requests: 20, windowSeconds: 3600 },
      indexNotify: { path: '/api/index-notify', requests: 20, windowSeconds: 3600 },
      subscribeConfirm: { path: '/api/subscribe/confirm', requests: 20, windowSeconds: 3600 },
      unsubscribe: { path: '/api/subscribe/unsubscribe', requests: 120, windowSeconds: 600 },
    });
  });

  it('limits the MCP endpoint beside them, and nothing else', () => {
    expect(routeLimits).toEqual({ ...writeRouteLimits, mcp: { path: '/mcp', requests: 120, windowSeconds: 60 } });
    expect(otherRouteLimits.mcp).toEqual(routeLimits.mcp);
  });
});
