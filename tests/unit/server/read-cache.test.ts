import { describe, expect, it } from 'vitest';
import { matchesIfNoneMatch } from '@/lib/server/read-cache';

describe('If-None-Match', () => {
  it.each([
    ['"a"', true],
    ['W/"a"', true],
    ['"x", "a"', true],
    ['*', true],
    ['"b"', false],
    ['', false],
    [undefined, false],
    ['"a-gz"', false],
  ])('%j matches "a": %s', (header, expected) => {
    expect(matchesIfNoneMatch(header, ['"a"'])).toBe(expected);
  });
});
