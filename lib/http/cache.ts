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
  /** An answer that depends on who asks (a refused crawler): never stored, so no cache gives it to anyone else. */
  refusal: { 'Cache-Control': 'no-store', 'Access-Control-Allow-Origin': '*' },
} as const satisfies Record<string, Record<string, string>>;
export type CacheProfile = keyof typeof cacheProfiles;

export function cacheHeaders(profile: CacheProfile): Record<string, string> {
  return cacheProfiles[profile];
}

/**
 * A Cache-Control value that no cache may serve past `seconds` from now (the time to the next
 * post going live): where its lifetime (`max-age` or `s-maxage`, plus `stale-while-revalidate`)
 * would reach further, `max-age` and `s-maxage` are lowered to it and stale-while-revalidate
 * goes. A value that ends sooner, or has no lifetime, is left as it is.
 */
export function boundedCacheControl(value: string, seconds: number): string {
  const directives = value.split(',').map((directive) => directive.trim());
  const number = (name: string) => Number(directives.find((directive) => directive.toLowerCase().startsWith(`${name}=`))?.slice(name.length + 1) ?? 0);
  const fresh = Math.max(number('max-age'), number('s-maxage'));
  if (!/(?:^|,)\s*(?:max-age|s-maxage)=\d+/i.test(value) || fresh + number('stale-while-revalidate') <= seconds) return value;
  const limit = Math.max(0, Math.floor(seconds));
  return directives
    .filter((directive) => !/^stale-while-revalidate(=|$)/i.test(directive))
    .map((directive) => directive.replace(/^(max-age|s-maxage)=(\d+)$/i, (_, name: string, age: string) => `${name}=${Math.min(Number(age), limit)}`))
    .join(', ');
}
