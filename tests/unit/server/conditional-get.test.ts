import { describe, expect, it } from 'vitest';
import { isNotModified, matchesIfNoneMatch, preconditionHolds } from '@/lib/server/conditional-get';

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
  const entry = {
    status: 200,
    etag: '"abc"',
    gzip: { body: Buffer.alloc(0), etag: '"abc-gz"' },
    br: { body: Buffer.alloc(0), etag: '"abc-br"' },
    headers: [['last-modified', 'Wed, 01 Jan 2025 00:00:00 GMT']] as [string, string][],
  };
  const holds = (headers: Record<string, string>, on: Partial<Omit<typeof entry, 'br'>> & { br?: typeof entry.br | null } = {}) =>
    preconditionHolds({ headers }, { ...entry, ...on });

  it('holds for *, the current tag or its gzip or brotli variant, and fails for another or a weak tag (strong comparison)', () => {
    expect(holds({ 'if-match': '*' })).toBe(true);
    expect(holds({ 'if-match': '"x", "abc"' })).toBe(true);
    expect(holds({ 'if-match': '"abc-gz"' })).toBe(true);
    expect(holds({ 'if-match': '"abc-br"' })).toBe(true);
    expect(holds({ 'if-match': '"abc-br"' }, { br: null })).toBe(false);
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

describe('If-None-Match and If-Modified-Since', () => {
  const entry = {
    status: 200,
    etag: '"abc"',
    gzip: { body: Buffer.alloc(0), etag: '"abc-gz"' },
    br: null,
    headers: [['last-modified', 'Wed, 01 Jan 2025 00:00:00 GMT']] as [string, string][],
  };
  const notModified = (headers: Record<string, string>, status = 200, sent = entry.etag) => isNotModified({ headers }, { ...entry, status }, sent);

  it('answers 304 to the tag of the copy being sent (weak comparison), and not to another copy’s or another tag', () => {
    expect(notModified({ 'if-none-match': '"abc"' })).toBe(true);
    expect(notModified({ 'if-none-match': 'W/"abc-gz"' }, 200, '"abc-gz"')).toBe(true);
    expect(notModified({ 'if-none-match': '"x", "abc-gz"' }, 200, '"abc-gz"')).toBe(true);
    expect(notModified({ 'if-none-match': '"abc-gz"' })).toBe(false);
    expect(notModified({ 'if-none-match': '"abc"' }, 200, '"abc-gz"')).toBe(false);
    expect(notModified({ 'if-none-match': '"x"' })).toBe(false);
  });

  it('compares If-Modified-Since with Last-Modified only without If-None-Match', () => {
    expect(notModified({ 'if-modified-since': 'Wed, 01 Jan 2025 00:00:00 GMT' })).toBe(true);
    expect(notModified({ 'if-modified-since': 'Tue, 31 Dec 2024 23:59:59 GMT' })).toBe(false);
    expect(notModified({ 'if-none-match': '"x"', 'if-modified-since': 'Wed, 01 Jan 2025 00:00:00 GMT' })).toBe(false);
    expect(notModified({})).toBe(false);
  });

  it('never answers 304 for a response that is not 200', () => {
    expect(notModified({ 'if-none-match': '"abc"' }, 404)).toBe(false);
  });
});
