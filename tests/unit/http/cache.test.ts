import { describe, expect, it } from 'vitest';
import { cacheHeaders } from '@/lib/http/cache';

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
