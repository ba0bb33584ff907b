import { describe, expect, it } from 'vitest';
import { withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

const { downloadUrl, readLink } = await import('@/lib/downloads/links');

const SECRET = 'a-download-secret-of-thirty-two-chars';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** What the site makes of a link's URL. */
const read = (url: string) => {
  const parsed = new URL(url);
  return readLink(SECRET, parsed.pathname, parsed.searchParams);
};

describe('a download link', () => {
  const facts = { order: 'cs_test_1', file: 0, expires: 4_102_444_800_000 };
  const url = downloadUrl(SECRET, facts);
  const signature = new URL(url).searchParams.get('signature')!;
  const withSignature = (given: string) => url.replace(`signature=${signature}`, `signature=${encodeURIComponent(given)}`);

  it('is read back to what it names, as the site signed it', () => {
    expect(read(url)).toEqual(facts);
  });

  it('is refused as tampered when its signature is spelled otherwise, even where it decodes to the same bytes', () => {
    const last = signature.at(-1)!;
    // The last character carries spare bits the decoder ignores: the same bytes, another link.
    const spareBits = BASE64URL[BASE64URL.indexOf(last) ^ 1]!;
    const respelled = [
      signature.slice(0, -1) + spareBits,
      `${signature}=`,
      `${signature}!!`,
      `${signature.slice(0, 10)}.${signature.slice(10)}`,
      ` ${signature}`,
    ];
    for (const given of respelled) expect(read(withSignature(given)), given).toBe('tampered');
    expect(read(withSignature(''))).toBe('tampered');
  });
});
