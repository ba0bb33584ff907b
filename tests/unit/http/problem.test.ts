import { describe, expect, it } from 'vitest';
import { absoluteUrl } from '@/lib/runtime/site';
import { problem, problemDetails, problemTypes } from '@/lib/http/problem';

describe('problem details (RFC 9457)', () => {
  it('answers with the status of its type, as problem+json, with a type URL documented on the site', async () => {
    const response = problem('invalid-input', 'email: not an address', { errors: [{ path: 'email', message: 'not an address' }] });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await response.json()).toEqual({
      type: absoluteUrl('/docs/api#problem-invalid-input'),
      title: 'Invalid input',
      status: 400,
      detail: 'email: not an address',
      errors: [{ path: 'email', message: 'not an address' }],
    });
  });

  it('uses the error cache profile unless told otherwise, and keeps headers it is given', () => {
    expect(problem('not-found', 'No such post.').headers.get('cache-control')).toBe('public, max-age=30');
    const limited = problem('rate-limited', 'Slow down.', { cache: 'write', headers: { 'Retry-After': '30' } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(limited.headers.get('retry-after')).toBe('30');
  });

  it('has no errors member without field errors', () => {
    expect(problemDetails('gone', 'Expired.')).not.toHaveProperty('errors');
  });

  it('gives every type a client or server error status', () => {
    for (const [type, { status }] of Object.entries(problemTypes)) expect(status >= 400 && status < 600, type).toBe(true);
  });
});
