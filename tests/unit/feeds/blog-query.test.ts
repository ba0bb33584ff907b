import { describe, expect, it } from 'vitest';
import { blogQuerySchema } from '@/lib/feeds/blog-json';
import { parseQuery } from '@/lib/http/query';

/** The query of /api/blog as its route reads it. */
const parse = (...limit: string[]) => parseQuery(blogQuerySchema, new URLSearchParams(limit.map((value) => ['limit', value])));

describe('the /api/blog limit parameter', () => {
  it('is optional', () => {
    expect(parse()).toEqual({ ok: true, query: { limit: undefined } });
  });
  it.each([
    ['1', 1],
    ['25', 25],
    ['007', 7],
  ])('accepts %s', (value, expected) => {
    expect(parse(value)).toEqual({ ok: true, query: { limit: expected } });
  });
  it.each(['0', '-1', '2.5', 'abc', '', '1e3', '+1', ' 1', '000'])('refuses %j', (value) => {
    expect(parse(value)).toEqual({ ok: false, errors: [{ path: 'limit', message: 'must be a positive integer' }] });
  });
  it('refuses a repeated limit', () => {
    expect(parse('1', '2')).toEqual({ ok: false, errors: [{ path: 'limit', message: 'must be given at most once' }] });
  });
});
