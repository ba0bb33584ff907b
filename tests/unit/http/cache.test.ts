import { describe, expect, it } from 'vitest';
import { boundedCacheControl, cacheHeaders, cacheProfiles } from '@/lib/http/cache';

describe('cache profiles', () => {
  it('lets a CDN keep a read and revalidate it in the background, from any origin', () => {
    expect(cacheHeaders('read')).toEqual({
      'Cache-Control': 'public, max-age=300, s-maxage=3600, stale-while-revalidate=86400',
      'Access-Control-Allow-Origin': '*',
    });
  });

  it('keeps an error a minute, and never stores a redirect, a write or a health answer', () => {
    expect(cacheHeaders('error')['Cache-Control']).toBe('public, max-age=60');
    for (const profile of ['redirect', 'write', 'live'] as const) expect(cacheHeaders(profile)['Cache-Control'], profile).toBe('no-store');
  });

  it('opens reads, errors and redirects to other origins, and nothing personal', () => {
    expect(cacheHeaders('redirect')['Access-Control-Allow-Origin']).toBe('*');
    expect(cacheHeaders('write')).not.toHaveProperty('Access-Control-Allow-Origin');
    expect(cacheHeaders('live')).not.toHaveProperty('Access-Control-Allow-Origin');
  });
});

describe('boundedCacheControl', () => {
  const read = cacheProfiles.read['Cache-Control'];

  it('ends every freshness lifetime by the next post’s time, with no stale answer after it', () => {
    expect(boundedCacheControl(read, 42.9)).toBe('public, max-age=42, s-maxage=42');
    expect(boundedCacheControl(read, -3)).toBe('public, max-age=0, s-maxage=0');
  });

  it('keeps a lifetime that ends first, stale answers included, and leaves a value without one alone', () => {
    expect(boundedCacheControl('public, max-age=60', 3_600)).toBe('public, max-age=60');
    expect(boundedCacheControl(read, 3_600 + 86_400)).toBe(read);
    expect(boundedCacheControl(read, 3_600 + 86_399)).toBe('public, max-age=300, s-maxage=3600');
    expect(boundedCacheControl('no-store', 5)).toBe('no-store');
  });
});
