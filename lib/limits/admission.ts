import type { Settings } from '../settings';
import { clientAddress, limitKey, recordedVerifiedAgent } from '../http/client-ip';
import type { ProblemType } from '../http/problem';
import type { Limiter, LimitDecision } from './limiter';
import { agentRoutes, routeLimits, type LimitedRoute } from './table';

/**
 * The RateLimit-Policy header of a route, and RateLimit once a decision is made (IETF httpapi draft).
 * The limit is the decision's (the limiter applies a verified agent's budget); before one, the table's.
 */
export function rateLimitHeaders(route: LimitedRoute, decision?: LimitDecision): Record<string, string> {
  const { windowSeconds } = routeLimits[route];
  const requests = decision?.limit ?? routeLimits[route].requests;
  const window = decision?.windowSeconds ?? windowSeconds;
  const headers: Record<string, string> = { 'RateLimit-Policy': `"${route}";q=${requests};w=${Math.round(window)}` };
  if (decision) headers.RateLimit = `"${route}";r=${decision.remaining};t=${decision.resetSeconds}`;
  return headers;
}

/** Why a request was refused before anything else was looked at. */
export type Refusal = { problem: Extract<ProblemType, 'not-served-by-lectern' | 'rate-limited'>; detail: string; headers?: Record<string, string> };

/** The outcome of admission, with the headers every answer of the route carries. */
export type Admission =
  { ok: true; client: string; agent?: string; headers: Record<string, string> } | { ok: false; refusal: Refusal; headers: Record<string, string> };

let warnedNoClientAddress = false;

/**
 * The first two steps of every limited route (the write routes and MCP): the client address
 * (lib/http/client-ip.ts), then the limit (every request counts, `cost` times when it is priced by
 * its work: an MCP call). With no address that can be
 * believed (no lectern server in front, and nothing declared for the platform) a shared or
 * client-chosen limit key would be no limit at all, so nothing is done; that is logged once
 * per process.
 */
export async function admit(request: Request, route: LimitedRoute, limiter: Limiter, deployment: Settings['deployment'], cost = 1): Promise<Admission> {
  // A verified agent (recorded by lectern's server, with its proof) is counted by its identity, on the route's agent budget.
  const agent = recordedVerifiedAgent(request.headers);
  const agentRoute = agentRouteOf(route);
  if (agent && agentRoute) return admitAgent(agent, agentRoute, limiter, cost);
  const address = clientAddress(request.headers, deployment);
  if (!address) {
    if (!warnedNoClientAddress) {
      warnedNoClientAddress = true;
      console.error(
        "posts refused: no client address can be believed; run the site with `npm start` (lectern's server), or without it set CLIENT_IP_HEADER (the header your platform's edge overwrites with the client address) or TRUST_PROXY",
      );
    }
    return {
      ok: false,
      refusal: {
        problem: 'not-served-by-lectern',
        detail:
          "This site takes posts only when it knows each client's address for the rate limits: run it with `npm start` (lectern's server), or, on a host that runs Next.js itself, set CLIENT_IP_HEADER to the header the host's edge overwrites with the client address (or TRUST_PROXY to the number of proxies in front). Nothing was kept.",
      },
      headers: rateLimitHeaders(route),
    };
  }
  const client = limitKey(address, routeLimits[route].ipv6Prefix);
  const decision = await limiter.check(route, client, cost);
  const headers = rateLimitHeaders(route, decision);
  if (decision.allowed) return { ok: true, client, headers };
  return { ok: false, refusal: rateLimited(decision.retryAfterSeconds, 'address'), headers };
}

/** The agent budget of a route that has one (the route and its agent budget share the path). */
function agentRouteOf(route: LimitedRoute): LimitedRoute | undefined {
  const path = routeLimits[route].path;
  return routeLimits[route].per === 'agent' ? undefined : (agentRoutes as Record<string, LimitedRoute>)[path];
}

/**
 * A verified agent's request, counted against its identity's budget on `agentRoute` (`cost` units),
 * whatever its address: /mcp through `admit`, /api/search by lectern's server (lib/server/search-thread.ts).
 */
export async function admitAgent(agent: string, agentRoute: LimitedRoute, limiter: Limiter, cost = 1): Promise<Admission> {
  const decision = await limiter.check(agentRoute, `agent:${agent}`, cost);
  const headers = rateLimitHeaders(agentRoute, decision);
  if (decision.allowed) return { ok: true, client: `agent:${agent}`, agent, headers };
  return { ok: false, refusal: rateLimited(decision.retryAfterSeconds, 'agent'), headers };
}

function rateLimited(wait: number, per: 'address' | 'agent'): Refusal {
  return {
    problem: 'rate-limited',
    detail: `Too many requests from your ${per === 'agent' ? 'agent' : 'address'}. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
    headers: { 'Retry-After': String(wait) },
  };
}
