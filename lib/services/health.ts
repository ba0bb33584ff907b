import { cacheHeaders } from '../http/cache';
import { problem } from '../http/problem';
import { describeError } from '../log';
import { withTimeout } from '../timeout';
import type { Store } from './store/types';

/** How long the health check waits for the store before calling it down. */
export const HEALTH_TIMEOUT_MS = 1000;

export type Health = { ok: true; store: Store['kind'] } | { ok: false; store: Store['kind'] | 'store'; reason: string };

/**
 * Whether this instance can do its work: the store (SQLite, or Redis when
 * configured) answers a ping within `timeoutMs`. Never waits longer.
 */
export async function checkHealth(openStore: () => Pick<Store, 'kind' | 'ping'>, timeoutMs = HEALTH_TIMEOUT_MS): Promise<Health> {
  let target: Pick<Store, 'kind' | 'ping'>;
  try {
    target = openStore();
  } catch (error) {
    return { ok: false, store: 'store', reason: `cannot be opened: ${describeError(error)}` };
  }
  try {
    await withTimeout(timeoutMs, `did not answer within ${timeoutMs} ms`, () => target.ping());
    return { ok: true, store: target.kind };
  } catch (error) {
    return { ok: false, store: target.kind, reason: describeError(error) };
  }
}

/** 200 JSON when healthy, else a 503 problem naming the part that failed; never stored by any cache. */
export function healthResponse(health: Health): Response {
  if (!health.ok) {
    const part = health.store === 'store' ? 'The store' : `The store (${health.store})`;
    return problem('service-unavailable', `${part} is not reachable: ${health.reason}.`, { cache: 'live', headers: { 'Retry-After': '10' } });
  }
  return new Response(JSON.stringify({ status: 'ok', store: health.store }), {
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...cacheHeaders('live') },
  });
}
