import { describe, expect, it } from 'vitest';
import { hashToken, newToken, sameSecret } from '@/lib/services/tokens';

describe('newToken', () => {
  it('makes a different 256-bit URL-safe secret each time, with the hash the store keeps of it', () => {
    const tokens = Array.from({ length: 50 }, () => newToken());
    expect(new Set(tokens.map(({ token }) => token)).size).toBe(50);
    for (const { token, hash } of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(hash).toBe(hashToken(token));
      expect(hash).not.toBe(token);
    }
  });
});

describe('hashToken', () => {
  it('is the SHA-256 of the token in base64url, the same for the same token', () => {
    expect(hashToken('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(hashToken('abc')).toBe(hashToken('abc'));
    expect(hashToken('abd')).not.toBe(hashToken('abc'));
  });
});

describe('sameSecret', () => {
  it('is true only for the very same secret, whatever the lengths', () => {
    const cases: [string, string, boolean][] = [
      ['s3cret', 's3cret', true],
      ['s3cret', 's3cres', false],
      ['s3cret', 's3cret ', false],
      ['', '', true],
      ['x'.repeat(10_000), 's3cret', false],
    ];
    expect(cases.map(([given, expected]) => sameSecret(given, expected))).toEqual(cases.map(([, , same]) => same));
  });
});
