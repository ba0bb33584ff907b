import type { Ipv6Prefix } from '../http/client-ip';
import { FORM_BODY_LIMIT, MCP_BODY_LIMIT, PAYMENTS_WEBHOOK_PATH, STRIPE_EVENT_BODY_LIMIT } from '../http/body';
import { writeRoutes, type WriteRoute } from '../write-routes';

export type RouteLimit = {
  path: string;
  requests: number;
  windowSeconds: number;
  /** The IPv6 network one client is counted by (DEFAULT_IPV6_PREFIX of lib/http/client-ip.ts unless given). */
  ipv6Prefix?: Ipv6Prefix;
};

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
 * every call is a POST that the read cache cannot answer: the MCP endpoint,
 * generously, since one conversation makes many calls.
 */
export const otherRouteLimits = {
  mcp: { path: '/mcp', requests: 120, windowSeconds: 60 },
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
