import type { Settings } from '../settings';
import { clientAddress, limitKey } from '../http/client-ip';
import type { ProblemType } from '../http/problem';
import type { Limiter, LimitDecision } from './limiter';
import { routeLimits, type LimitedRoute } from './table';

/** The RateLimit-Policy header of a route, and RateLimit once a decision is made (IETF httpapi draft). */
export function rateLimitHeaders(route: LimitedRoute, decision?: LimitDecision): Record<string, string> {
  const { requests, windowSeconds } = routeLimits[route];
  const window = decision?.windowSeconds ?? windowSeconds;
  const headers: Record<string, string> = { 'RateLimit-Policy': `"${route}";q=${requests};w=${Math.round(window)}` };
  if (decision) headers.RateLimit = `"${route}";r=${decision.remaining};t=${decision.resetSeconds}`;
  return headers;
}

/** Why a request was refused before anything else was looked at. */
export type Refusal = { problem: Extract<ProblemType, 'not-served-by-lectern' | 'rate-limited'>; detail: string; headers?: Record<string, string> };

/** The outcome of admission, with the headers every answer of the route carries. */
export type Admission = { ok: true; client: string; headers: Record<string, string> } | { ok: false; refusal: Refusal; headers: Record<string, string> };

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
  const wait = decision.retryAfterSeconds;
  return {
    ok: false,
    refusal: {
      problem: 'rate-limited',
      detail: `Too many requests from your address. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
      headers: { 'Retry-After': String(wait) },
    },
    headers,
  };
}
