import { describe, expect, it } from 'vitest';
import { blogQuerySchema } from '@/lib/feeds/blog-json';

const parse = (...limit: string[]) => blogQuerySchema.safeParse({ limit });

describe('the /api/blog limit parameter', () => {
  it('is optional', () => {
    expect(parse()).toMatchObject({ success: true, data: { limit: undefined } });
  });
  it.each([
    ['1', 1],
    ['25', 25],
    ['007', 7],
  ])('accepts %s', (value, expected) => {
    expect(parse(value)).toMatchObject({ success: true, data: { limit: expected } });
  });
  it.each(['0', '-1', '2.5', 'abc', '', '1e3', '+1', ' 1'])('refuses %j', (value) => {
    expect(parse(value).success).toBe(false);
  });
  it('refuses a repeated limit', () => {
    expect(parse('1', '2').success).toBe(false);
  });
});
