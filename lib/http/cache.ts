/**
 * Named cache profiles: a route says what it is, not which headers it sends.
 * Reads may be cached by a CDN, nginx or a browser and revalidated cheaply (a 304 to their
 * ETag); redirects to app builds must not be cached.
 *
 * A read's Cache-Control is the same at every moment, whatever is scheduled: a post going live
 * reaches a cache by revalidation, never by a lifetime that ends at its time (which would tell
 * anyone when the next post is due). A copy is fresh for READ_FRESH_SECONDS, then may be served
 * stale for at most READ_STALE_SECONDS while it is revalidated: no copy is served more than 60 s
 * after it was fetched, the bound the README promises for caches. An error is kept as long.
 */
export const READ_FRESH_SECONDS = 30;
export const READ_STALE_SECONDS = 30;

export const cacheProfiles = {
  read: {
    'Cache-Control': `public, max-age=${READ_FRESH_SECONDS}, s-maxage=${READ_FRESH_SECONDS}, stale-while-revalidate=${READ_STALE_SECONDS}`,
    'Access-Control-Allow-Origin': '*',
  },
  redirect: { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' },
  error: { 'Cache-Control': `public, max-age=${READ_FRESH_SECONDS}`, 'Access-Control-Allow-Origin': '*' },
  /** Answers to POSTs and anything personal: never stored anywhere. */
  write: { 'Cache-Control': 'no-store' },
  /** Answers about this moment (the health check): never stored, so a probe always reaches the instance. */
  live: { 'Cache-Control': 'no-store' },
  /** An answer that depends on who asks (a refused crawler): never stored, so no cache gives it to anyone else. */
  refusal: { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' },
} as const satisfies Record<string, Record<string, string>>;
export type CacheProfile = keyof typeof cacheProfiles;

export function cacheHeaders(profile: CacheProfile): Record<string, string> {
  return cacheProfiles[profile];
}
