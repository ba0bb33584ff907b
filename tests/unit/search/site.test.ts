import { describe, expect, it } from 'vitest';
import { parseSearchQuery } from '@/lib/search/site';

const parse = (query: string) => parseSearchQuery(new URLSearchParams(query));

describe('parseSearchQuery', () => {
  it('takes q trimmed and limit 10 by default', () => {
    expect(parse('q=%20etag%20')).toEqual({ ok: true, query: { q: 'etag', limit: 10 } });
    expect(parse('q=etag&limit=50')).toEqual({ ok: true, query: { q: 'etag', limit: 50 } });
  });

  it('counts each word once, and common English words not at all', () => {
    const words = Array.from({ length: 10 }, (_, i) => `word${i}`).join(' ');
    expect(parse(new URLSearchParams({ q: `${words} ${words} the of and` }).toString())).toMatchObject({ ok: true });
  });

  it.each([
    ['', 'q', 'is required'],
    ['q=', 'q', 'must not be empty'],
    ['q=%20%20', 'q', 'must not be empty'],
    [`q=${'a'.repeat(201)}`, 'q', 'must be at most 200 characters'],
    ['q=a&q=b', 'q', 'must be given at most once'],
    ['q=a&limit=0', 'limit', 'must be an integer from 1 to 50'],
    ['q=a&limit=51', 'limit', 'must be an integer from 1 to 50'],
    ['q=a&limit=2.5', 'limit', 'must be an integer from 1 to 50'],
    ['q=a&limit=', 'limit', 'must be an integer from 1 to 50'],
    ['q=a&limit=1&limit=2', 'limit', 'must be given at most once'],
    [
      `q=${Array.from({ length: 11 }, (_, i) => `word${i}`).join('+')}`,
      'q',
      'must have at most 10 different words (repeated words and common ones such as "the" are not counted)',
    ],
  ])('refuses %j: %s %s', (query, path, message) => {
    expect(parse(query)).toEqual({ ok: false, errors: [{ path, message }] });
  });
});
