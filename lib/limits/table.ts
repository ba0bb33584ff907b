import {
  fediverseInboxRoute,
  FORM_BODY_LIMIT,
  mcpRoute,
  paymentsWebhookRoute,
  publishRoute,
  verifiedAgentLimit,
  writeRouteAddresses,
  type Ipv6Prefix,
  type WriteRoute,
} from '../routes/manifest';

export type RouteLimit = {
  path: string;
  requests: number;
  windowSeconds: number;
  /** Who one budget is for: a client address (the default), a verified agent's identity (Web Bot Auth), or a remote fediverse server. */
  per?: 'address' | 'agent' | 'server';
  /** The IPv6 network one client is counted by (DEFAULT_IPV6_PREFIX of lib/http/client-ip.ts unless given). */
  ipv6Prefix?: Ipv6Prefix;
};

/**
 * The published limits of the write routes: per client IP, per route, sliding
 * window, from the route manifest (lib/routes/manifest.ts). The limiter, the
 * RateLimit-Policy header and /openapi.json all read this table.
 */
export const writeRouteLimits = Object.fromEntries(
  Object.values(writeRouteAddresses).map((route) => [route.name, { path: route.path, ...route.limit }]),
) as Record<WriteRoute, RouteLimit>;

export type { WriteRoute };

/** Routes that change nothing yet are limited like the write routes (lib/routes/manifest.ts says why). */
export const otherRouteLimits = {
  mcp: { path: mcpRoute.path, ...mcpRoute.limit },
  publish: { path: publishRoute.path, ...publishRoute.limit },
  mcpAgent: { path: mcpRoute.path, ...verifiedAgentLimit, per: 'agent' },
  searchAgent: { path: '/api/search', ...verifiedAgentLimit, per: 'agent' },
  fediverseInbox: { path: fediverseInboxRoute.path, ...fediverseInboxRoute.limit },
  fediverseServer: { path: fediverseInboxRoute.path, ...fediverseInboxRoute.serverLimit, per: 'server' },
} as const;

/** Every limited route: the write routes and the others above. The limiter and the RateLimit headers read this. */
export const routeLimits: Record<WriteRoute | keyof typeof otherRouteLimits, RouteLimit> = { ...writeRouteLimits, ...otherRouteLimits };
export type LimitedRoute = keyof typeof routeLimits;

/** The budget a verified agent is counted against, by the path it asks: instead of its address's on /mcp, and on /api/search (which limits no address). */
export const agentRoutes = { [mcpRoute.path]: 'mcpAgent', '/api/search': 'searchAgent' } as const satisfies Record<string, LimitedRoute>;

/**
 * A route's limit as this deployment applies it: the table's, except that a verified agent's
 * budget is `verifiedAgentBudget` requests a window (VERIFIED_AGENT_BUDGET, the table's by
 * default). The limiter and the docs page read this.
 */
export function appliedLimit(route: LimitedRoute, verifiedAgentBudget: number): RouteLimit {
  const limit = routeLimits[route];
  return limit.per === 'agent' ? { ...limit, requests: verifiedAgentBudget } : limit;
}

const bodyLimits = new Map<string, number>([
  ...Object.values(writeRouteLimits).map(({ path }) => [path, FORM_BODY_LIMIT] as const),
  [paymentsWebhookRoute.path, paymentsWebhookRoute.bodyLimit],
  [mcpRoute.path, mcpRoute.bodyLimit],
]);

/** The largest body a path reads, or undefined for a path that reads none (every read). */
export function bodyLimit(pathname: string): number | undefined {
  return bodyLimits.get(pathname);
}
