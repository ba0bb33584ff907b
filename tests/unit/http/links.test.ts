import { describe, expect, it } from 'vitest';
import { linkHeader } from '@/lib/http/links';

describe('linkHeader', () => {
  it('writes an RFC 8288 link value with its relation', () => {
    expect(linkHeader('https://example.test/.well-known/api-catalog', 'api-catalog')).toBe('<https://example.test/.well-known/api-catalog>; rel="api-catalog"');
  });

  it('adds the media type when one is given', () => {
    expect(linkHeader('https://example.test/blog/a.md', 'alternate', 'text/markdown')).toBe(
      '<https://example.test/blog/a.md>; rel="alternate"; type="text/markdown"',
    );
  });
});
