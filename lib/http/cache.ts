/**
 * Named cache profiles: a route says what it is, not which headers it sends.
 * Content changes only with a new build, so reads may be cached by a CDN and
 * revalidated cheaply; redirects to app builds must not be cached.
 */
export const cacheProfiles = {
  read: { 'Cache-Control': 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400', 'Access-Control-Allow-Origin': '*' },
  redirect: { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' },
  error: { 'Cache-Control': 'public, max-age=60', 'Access-Control-Allow-Origin': '*' },
  /** Answers to POSTs and anything personal: never stored anywhere. */
  write: { 'Cache-Control': 'no-store' },
  /** Answers about this moment (the health check): never stored, so a probe always reaches the instance. */
  live: { 'Cache-Control': 'no-store' },
} as const satisfies Record<string, Record<string, string>>;
export type CacheProfile = keyof typeof cacheProfiles;

export function cacheHeaders(profile: CacheProfile): Record<string, string> {
  return cacheProfiles[profile];
}
