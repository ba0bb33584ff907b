import { describe, expect, it } from 'vitest';
import { matchesIfNoneMatch, preconditionHolds } from '@/lib/server/read-cache';

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

describe('If-Match and If-Unmodified-Since', () => {
  const entry = { status: 200, etag: '"abc"', gzip: { body: Buffer.alloc(0), etag: '"abc-gz"' }, headers: [['last-modified', 'Wed, 01 Jan 2025 00:00:00 GMT']] as [string, string][] };
  const holds = (headers: Record<string, string>, on: Partial<typeof entry> = {}) => preconditionHolds({ headers }, { ...entry, ...on });

  it('holds for *, the current tag or its gzip variant, and fails for another or a weak tag (strong comparison)', () => {
    expect(holds({ 'if-match': '*' })).toBe(true);
    expect(holds({ 'if-match': '"x", "abc"' })).toBe(true);
    expect(holds({ 'if-match': '"abc-gz"' })).toBe(true);
    expect(holds({ 'if-match': '"x"' })).toBe(false);
    expect(holds({ 'if-match': 'W/"abc"' })).toBe(false);
  });

  it('compares If-Unmodified-Since with Last-Modified only without If-Match, ignoring a date it cannot read', () => {
    expect(holds({ 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).toBe(false);
    expect(holds({ 'if-unmodified-since': 'Wed, 01 Jan 2025 00:00:00 GMT' })).toBe(true);
    expect(holds({ 'if-unmodified-since': 'not a date' })).toBe(true);
    expect(holds({ 'if-match': '"abc"', 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).toBe(true);
  });

  it('ignores both on a response that is not 2xx', () => {
    expect(holds({ 'if-match': '"x"' }, { status: 404 })).toBe(true);
  });
});
