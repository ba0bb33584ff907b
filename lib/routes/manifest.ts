/*
 * Every route that reads a request body, as plain data: its name, path, methods, limit per
 * client address and the largest body it reads. It imports nothing of lectern's, so anything
 * may read it: the limiter and the RateLimit headers (lib/limits/table.ts), lectern's server
 * (which paths take a body, which answer POST only), /openapi.json and the docs page. The
 * behaviour (schemas, actions, handlers) lives in the route modules, which take their address
 * from here (lib/write-routes/*.ts, lib/mcp, lib/payments/webhook.ts). Beside them, the pages
 * with a markdown twin (markdownTwinRoutes), read by negotiation (lib/http/markdown-twins.ts).
 */

/** The largest body a form (every write route) may send. */
export const FORM_BODY_LIMIT = 16 * 1024;
/** The largest Stripe event the webhook reads. */
export const STRIPE_EVENT_BODY_LIMIT = 1024 * 1024;
/** The largest MCP message (a JSON-RPC request) the MCP endpoint reads. */
export const MCP_BODY_LIMIT = 64 * 1024;
/**
 * The deepest an MCP message may nest its arrays and objects. No MCP message needs more than a
 * few levels; a deeper one is refused as it is read, before it is parsed or handed to another
 * thread (a structured clone of some thousand levels overflows the stack).
 */
export const MCP_MAX_DEPTH = 64;

/** How many leading bits of an IPv6 address make one client. */
export type Ipv6Prefix = 48 | 56 | 64;

/**
 * The checkouts count an IPv6 client by its /48, the network a whole site is given: a checkout
 * holds seats (or starts a Stripe session) that other buyers then wait for, so one network gets
 * one budget and one seat-hold bound (MAX_HELD_SEATS_PER_CLIENT), not one per /56.
 */
export const PAYMENTS_IPV6_PREFIX: Ipv6Prefix = 48;

/** Requests per client address in a sliding window (an IPv6 client by its `ipv6Prefix` network; DEFAULT_IPV6_PREFIX of lib/http/client-ip.ts unless given). */
export type RouteLimitSpec = { requests: number; windowSeconds: number; ipv6Prefix?: Ipv6Prefix };

/** Where a write route answers and how often one client may call it. */
export type WriteRouteAddress<Name extends string = string> = {
  /** The route's name in RateLimit headers, limiter keys and the OpenAPI request schema. */
  name: Name;
  path: string;
  /** Per client address, sliding window. */
  limit: RouteLimitSpec;
};

const minutes = (count: number) => count * 60;

/** Every checkout has one limit: each holds seats or starts a Stripe session, counted by the /48 (PAYMENTS_IPV6_PREFIX). */
const checkoutLimit: RouteLimitSpec = { requests: 10, windowSeconds: minutes(10), ipv6Prefix: PAYMENTS_IPV6_PREFIX };

/**
 * The write routes: the spec's seven, the two newsletter links and Postmark's bounce webhook (lectern's own limits). A new
 * write route is a line here, its module in lib/write-routes/ and its line in the registry there.
 */
export const writeRouteAddresses = {
  bookingCancel: { name: 'bookingCancel', path: '/api/booking/cancel', limit: { requests: 20, windowSeconds: minutes(60) } },
  bookingMove: { name: 'bookingMove', path: '/api/booking/move', limit: { requests: 20, windowSeconds: minutes(60) } },
  checkout: { name: 'checkout', path: '/api/payments/checkout', limit: checkoutLimit },
  downloadsResend: { name: 'downloadsResend', path: '/api/downloads/resend', limit: { requests: 5, windowSeconds: minutes(10) } },
  postmarkBounces: { name: 'postmarkBounces', path: '/api/bounces/postmark', limit: { requests: 300, windowSeconds: minutes(10) } },
  indexNotify: { name: 'indexNotify', path: '/api/index-notify', limit: { requests: 20, windowSeconds: minutes(60) } },
  specialOfferCheckout: { name: 'specialOfferCheckout', path: '/api/payments/special-offer/checkout', limit: checkoutLimit },
  subscribe: { name: 'subscribe', path: '/api/subscribe', limit: { requests: 5, windowSeconds: minutes(10) } },
  subscribeConfirm: { name: 'subscribeConfirm', path: '/api/subscribe/confirm', limit: { requests: 20, windowSeconds: minutes(60) } },
  support: { name: 'support', path: '/api/support', limit: { requests: 5, windowSeconds: minutes(10) } },
  trainingCheckout: { name: 'trainingCheckout', path: '/api/payments/training/checkout', limit: checkoutLimit },
  unsubscribe: { name: 'unsubscribe', path: '/api/subscribe/unsubscribe', limit: { requests: 120, windowSeconds: minutes(10) } },
} as const satisfies { [Name in string]: WriteRouteAddress<Name> };

export type WriteRoute = keyof typeof writeRouteAddresses;

/**
 * The MCP endpoint changes nothing, but every call is a POST the read cache cannot answer, so it
 * is limited like the write routes. It only reads, and each call's work is bounded (one message
 * per POST, a capped query, at most 50 results, one post), so its limit is a flood guard only:
 * 20 calls a second from one address, some five times what a hosted connector's research run
 * makes while many of its users share the vendor's addresses (README, MCP server).
 */
export const mcpRoute = { name: 'mcp', path: '/mcp', limit: { requests: 1200, windowSeconds: 60, ipv6Prefix: 64 }, bodyLimit: MCP_BODY_LIMIT } as const;

/**
 * A verified agent (Web Bot Auth) is counted by its identity, whatever its addresses, on /mcp and
 * /api/search: one hosted connector serving many users, so 100 calls a second by default, five
 * times one address's flood guard on /mcp. VERIFIED_AGENT_BUDGET sets the number
 * (lib/limits/table.ts reads it).
 */
export const verifiedAgentLimit = { requests: 6000, windowSeconds: 60 } as const;

/**
 * /api/publish reads no body, but it checks a secret: limited per address like a write route, so a
 * flood of guessed tokens is refused (429) long before it is many guesses. A cron job calls it once a
 * minute at most; lectern's own scheduler calls it inside the process and is not counted.
 */
export const publishRoute = { name: 'publish', path: '/api/publish', limit: { requests: 30, windowSeconds: minutes(10) } } as const;

/**
 * The fediverse's inboxes (`/inbox` and `/@{handle}/inbox`: lib/fediverse/paths.ts), limited when
 * the site is on the fediverse. Two budgets, sliding windows of a minute:
 * - per client address, every post (signed or not, refused or not): 1200, some 20 a second. One
 *   address may send for many servers (a host of small Mastodon instances delivers from a few
 *   addresses), and a busy server's burst (a post boosted by hundreds of its users) is a few hundred
 *   deliveries in a minute, each a separate POST;
 * - per remote server (the host of the key that signed it, else of its `actor`), only posts whose
 *   signature verified: 600. What one server sends the site is follows, likes, boosts and replies to
 *   its posts; a server past 600 in a minute is a flood, and Mastodon retries a 429 later with backoff.
 * An IPv6 client is counted by its /64: servers are hosted, not on home lines.
 */
export const fediverseInboxRoute = {
  name: 'fediverseInbox',
  path: '/inbox',
  limit: { requests: 1200, windowSeconds: 60, ipv6Prefix: 64 },
  serverLimit: { requests: 600, windowSeconds: 60 },
} as const;

/** Stripe's signed webhook: not limited per address (Stripe's own addresses send it), authenticated by its signature. */
export const paymentsWebhookRoute = { name: 'paymentsWebhook', path: '/api/payments/webhook', bodyLimit: STRIPE_EVENT_BODY_LIMIT } as const;

/** Every path that takes a POST (and a body); every other URL of the site is read with GET and HEAD. */
export const postPaths: readonly string[] = [...Object.values(writeRouteAddresses).map((route) => route.path), mcpRoute.path, paymentsWebhookRoute.path];

/** MCP's server card (SEP-1649), which names the server, its revisions and its tools. */
export const mcpServerCardRoute = { path: '/.well-known/mcp.json' } as const;

/** The terms as an RSL 1.0 licence (lib/agents/terms.ts writes it), with RSL's media type. */
export const licenseRoute = { path: '/license.xml', type: 'application/rsl+xml' } as const;

/**
 * The pages with a markdown twin, as plain data: each fixed page with its twin's path (served by a
 * static route of that path), and the sections whose every page (`/{section}/{param}`) has one at
 * `/{section}/{param}.md`, served by the route `/{section}/{param}/index.md`.
 * lib/http/markdown-twins.ts derives negotiation and the `.md` rewrites from it; the endpoint list
 * (lib/public-endpoints.ts) describes each twin, held to this list by tests/unit/public-endpoints.test.ts.
 */
export const markdownTwinRoutes = {
  fixed: {
    '/': '/index.md',
    '/blog': '/blog.md',
    '/pricing': '/pricing.md',
    '/apps': '/apps.md',
    '/docs/api': '/docs/api.md',
    '/support': '/support.md',
  },
  sections: { blog: 'slug', tags: 'tag' },
} as const;

/**
 * Pages rendered at each request from the settings the server runs with (not the build's), yet
 * the same for every reader: proxy.ts gives them the read profile, so lectern's read cache keeps
 * one copy per process with its ETag, and a CDN caches them like any read. `/pricing` shows its
 * buy buttons exactly when Stripe is configured where it runs.
 */
export const runtimeReadPages: readonly string[] = ['/pricing'];
