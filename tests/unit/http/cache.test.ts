import { describe, expect, it } from 'vitest';
import { cacheHeaders } from '@/lib/http/cache';

describe('cache profiles', () => {
  it('lets a CDN keep a read 30 s and revalidate it in the background for 30 s more, from any origin: 60 s at most in all', () => {
    expect(cacheHeaders('read')).toEqual({
      'Cache-Control': 'public, max-age=30, s-maxage=30, stale-while-revalidate=30',
      'Access-Control-Allow-Origin': '*',
    });
  });

  it('keeps an error 30 s, and never stores a redirect, a write or a health answer', () => {
    expect(cacheHeaders('error')['Cache-Control']).toBe('public, max-age=30');
    for (const profile of ['redirect', 'write', 'live'] as const) expect(cacheHeaders(profile)['Cache-Control'], profile).toBe('no-store');
  });

  it('opens reads, errors and redirects to other origins, and nothing personal', () => {
    expect(cacheHeaders('redirect')['Access-Control-Allow-Origin']).toBe('*');
    expect(cacheHeaders('write')).not.toHaveProperty('Access-Control-Allow-Origin');
    expect(cacheHeaders('live')).not.toHaveProperty('Access-Control-Allow-Origin');
  });
});
