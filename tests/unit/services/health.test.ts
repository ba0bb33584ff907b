import { describe, expect, it } from 'vitest';
import { checkHealth, healthResponse } from '@/lib/services/health';

describe('checkHealth', () => {
  it('is healthy when the store answers its ping', async () => {
    expect(await checkHealth(() => ({ kind: 'redis', ping: async () => undefined }))).toEqual({ ok: true, store: 'redis' });
  });

  it('names the store and the reason when the ping fails', async () => {
    const health = await checkHealth(() => ({
      kind: 'redis',
      ping: () => Promise.reject(new Error('connect ECONNREFUSED redis://user:secret@10.0.0.1:6379')),
    }));
    expect(health).toEqual({ ok: false, store: 'redis', reason: 'connect ECONNREFUSED <url>' });
  });

  it('gives up on a store that never answers instead of hanging', async () => {
    const health = await checkHealth(() => ({ kind: 'sqlite', ping: () => new Promise<void>(() => undefined) }), 20);
    expect(health).toEqual({ ok: false, store: 'sqlite', reason: 'did not answer within 20 ms' });
  });

  it('reports a store that cannot be opened', async () => {
    const health = await checkHealth(() => {
      throw new Error('unable to open database file');
    });
    expect(health).toEqual({ ok: false, store: 'store', reason: 'cannot be opened: unable to open database file' });
  });
});

describe('healthResponse', () => {
  it('answers 200 JSON that no cache keeps', async () => {
    const response = healthResponse({ ok: true, store: 'sqlite' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ status: 'ok', store: 'sqlite' });
  });

  it('answers a 503 problem naming the failing part', async () => {
    const response = healthResponse({ ok: false, store: 'redis', reason: 'did not answer within 1000 ms' });
    expect(response.status).toBe(503);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('retry-after')).toBe('10');
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await response.json()).toMatchObject({ status: 503, detail: 'The store (redis) is not reachable: did not answer within 1000 ms.' });
  });
});
