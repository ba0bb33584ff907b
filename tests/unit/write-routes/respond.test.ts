import { describe, expect, it } from 'vitest';
import { shapeAnswer, type AnswerFacts } from '@/lib/write-routes/respond';

const facts = (over: Partial<AnswerFacts> = {}): AnswerFacts => ({
  form: false,
  page: false,
  back: '/support',
  headers: { 'RateLimit-Policy': '"support";q=5;w=600' },
  platformHeaders: () => ({}),
  ...over,
});

describe('shapeAnswer', () => {
  it('answers a program JSON with the route headers, never to be cached', async () => {
    const response = shapeAnswer({ ok: true, status: 202, body: { status: 'pending' }, redirect: '/done' }, facts());
    expect(response.status).toBe(202);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('ratelimit-policy')).toBe('"support";q=5;w=600');
    expect(await response.json()).toEqual({ status: 'pending' });
  });

  it('sends a form post to its result page with 303', () => {
    const response = shapeAnswer({ ok: true, status: 202, body: {}, redirect: '/done' }, facts({ form: true, page: true }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/done');
  });

  it('answers a failure as problem+json, with its own headers', async () => {
    const response = shapeAnswer({ ok: false, problem: 'rate-limited', detail: 'Wait.', headers: { 'Retry-After': '7' } }, facts());
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toMatchObject({ status: 429, detail: 'Wait.' });
  });

  it('answers a browser form a readable page that lists the errors, escaped, with its way back', async () => {
    const response = shapeAnswer(
      { ok: false, problem: 'invalid-input', detail: 'Check email.', errors: [{ path: 'email', message: '<b>must</b> be an address' }] },
      facts({ form: true, page: true }),
    );
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('Check email.');
    expect(html).toContain('&lt;b&gt;must&lt;/b&gt;');
    expect(html).toContain('href="/support"');
  });

  it("adds the headers lectern's server would add, for the type sent", () => {
    const seen: string[] = [];
    shapeAnswer({ ok: false, problem: 'invalid-body', detail: 'x' }, facts({ platformHeaders: (type) => (seen.push(type), { 'X-Frame-Options': 'DENY' }) }));
    expect(seen).toEqual(['application/problem+json']);
    const response = shapeAnswer({ ok: true, status: 200, body: {} }, facts({ platformHeaders: () => ({ 'X-Frame-Options': 'DENY' }) }));
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });
});
