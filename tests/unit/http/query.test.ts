import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invalidQuery, parseQuery, queryParameters } from '@/lib/http/query';

const schema = z.object({
  q: z.string({ error: 'is required' }).min(1, 'must not be empty').describe('The words.'),
  page: z
    .string()
    .regex(/^[1-9][0-9]*$/, 'must be a page number')
    .transform(Number)
    .optional(),
});
const parse = (query: string) => parseQuery(schema, new URLSearchParams(query));

describe('parseQuery', () => {
  it('reads each parameter from its one value, and leaves an absent optional one out', () => {
    expect(parse('q=a&page=2&other=x')).toEqual({ ok: true, query: { q: 'a', page: 2 } });
    expect(parse('q=a')).toEqual({ ok: true, query: { q: 'a' } });
  });

  it('names a repeated parameter once and every invalid one, in the order the schema declares them', () => {
    expect(parse('page=0&q=a&q=b')).toEqual({
      ok: false,
      errors: [
        { path: 'q', message: 'must be given at most once' },
        { path: 'page', message: 'must be a page number' },
      ],
    });
    expect(parse('page=x')).toEqual({
      ok: false,
      errors: [
        { path: 'q', message: 'is required' },
        { path: 'page', message: 'must be a page number' },
      ],
    });
  });
});

describe('invalidQuery', () => {
  it('is a 400 problem naming the first bad parameter in its detail and each in errors', async () => {
    const errors = [
      { path: 'q', message: 'is required' },
      { path: 'page', message: 'must be a page number' },
    ];
    const response = invalidQuery(errors);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await response.json()).toMatchObject({ status: 400, detail: 'q is required', errors });
  });
});

describe('queryParameters', () => {
  it('lists each field as an OpenAPI query parameter: required unless optional, its description, the JSON Schema of its value', () => {
    expect(queryParameters(schema)).toEqual([
      { name: 'q', in: 'query', required: true, description: 'The words.', schema: { type: 'string', minLength: 1 } },
      { name: 'page', in: 'query', required: false, schema: { type: 'string', pattern: '^[1-9][0-9]*$' } },
    ]);
  });
});
