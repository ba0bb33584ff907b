import { FORM_BODY_LIMIT, MCP_BODY_LIMIT, PAYMENTS_WEBHOOK_PATH, STRIPE_EVENT_BODY_LIMIT } from '../http/body';
import { writeRoutes, type WriteRoute } from '../write-routes';

export type RouteLimit = { path: string; requests: number; windowSeconds: number };

/**
 * The published limits of the write routes: per client IP, per route, sliding
 * window, each taken from its route's definition (lib/write-routes). The
 * limiter, the RateLimit-Policy header and /openapi.json all read this table.
 */
export const writeRouteLimits = Object.fromEntries(writeRoutes.map((route) => [route.name, { path: route.path, ...route.limit }])) as Record<
  WriteRoute,
  RouteLimit
>;

export type { WriteRoute };

/**
 * Routes that change nothing yet are limited like the write routes, because
 * every call is a POST that the read cache cannot answer: the MCP endpoint. It
 * only reads, and each call's work is bounded (one message per POST, a capped
 * query, at most 50 results, one post), so its limit is a flood guard only: 20
 * calls a second from one address, some five times what a hosted connector's
 * research run makes while many of its users share the vendor's addresses
 * (README, MCP server).
 */
export const otherRouteLimits = {
  mcp: { path: '/mcp', requests: 1200, windowSeconds: 60 },
} as const;

/** Every limited route: the write routes and the others above. The limiter and the RateLimit headers read this. */
export const routeLimits: Record<WriteRoute | keyof typeof otherRouteLimits, RouteLimit> = { ...writeRouteLimits, ...otherRouteLimits };
export type LimitedRoute = keyof typeof routeLimits;

const bodyLimits = new Map<string, number>([
  ...Object.values(writeRouteLimits).map(({ path }) => [path, FORM_BODY_LIMIT] as const),
  [PAYMENTS_WEBHOOK_PATH, STRIPE_EVENT_BODY_LIMIT],
  [otherRouteLimits.mcp.path, MCP_BODY_LIMIT],
]);

/** The largest body a path reads, or undefined for a path that reads none (every read). */
export function bodyLimit(pathname: string): number | undefined {
  return bodyLimits.get(pathname);
}
