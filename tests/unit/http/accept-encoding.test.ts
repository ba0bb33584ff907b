import { describe, expect, it } from 'vitest';
import { chooseEncoding } from '@/lib/http/accept-encoding';

describe('chooseEncoding with brotli and gzip copies', () => {
  it.each([
    ['br, gzip', 'br'],
    ['gzip, br', 'br'],
    ['gzip, deflate, br, zstd', 'br'],
    ['BR', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0.5, gzip', 'gzip'],
    ['br;q=0.8, gzip;q=0.8', 'br'],
    ['gzip;q=0.5', 'gzip'],
    ['x-gzip', 'gzip'],
    ['deflate', 'identity'],
    ['identity', 'identity'],
    ['identity, br;q=0.5', 'identity'],
    ['*', 'br'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['*;q=0', 'identity'],
    ['br;q=0, gzip;q=0', 'identity'],
    ['br;q=2', 'identity'],
    ['br;q=abc, gzip', 'gzip'],
    ['br ; q=0.001', 'br'],
    ['gzip, gzip;q=0', 'gzip'],
    ['', 'identity'],
    ['  ', 'identity'],
    [undefined, 'identity'],
  ])('Accept-Encoding %j gets %s', (header, expected) => {
    expect(chooseEncoding(header, ['br', 'gzip'])).toBe(expected);
  });

  it('only picks a copy that exists', () => {
    expect(chooseEncoding('br, gzip', ['gzip'])).toBe('gzip');
    expect(chooseEncoding('br', ['gzip'])).toBe('identity');
    expect(chooseEncoding('br, gzip', [])).toBe('identity');
  });

  it('reads a header sent as several lines as one list', () => {
    expect(chooseEncoding(['gzip;q=0.5', 'br'], ['br', 'gzip'])).toBe('br');
  });
});
