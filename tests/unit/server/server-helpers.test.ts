import { describe, expect, it } from 'vitest';
import { addVaryAccept, isNegotiatedPath } from '@/lib/server/response-headers';

describe('Vary on negotiated responses', () => {
  it.each([
    [undefined, 'Accept'],
    ['rsc, Accept-Encoding', 'rsc, Accept-Encoding, Accept'],
    ['accept', 'accept'],
    ['*', '*'],
    [['a', 'b'], 'a, b, Accept'],
  ])('adds Accept to %j once', (vary, expected) => {
    expect(addVaryAccept(vary)).toBe(expected);
  });
  it.each([
    ['/blog/a-post', true],
    ['/blog/a-post.md', false],
    ['/blog', true],
    ['/blog.md', false],
    ['/blog/a-post/index.md', false],
    ['/', true],
    ['/index.md', false],
    ['/tags/http', true],
    ['/tags/http.md', false],
    ['/tags', false],
    ['/pricing', true],
    ['/pricing.md', false],
    ['/apps', true],
    ['/docs/api', true],
    ['/docs', false],
    ['/support', true],
    ['/support/sent', false],
    ['/subscribe/confirmed', false],
    ['/api/blog', false],
    ['/api/home/markdown', false],
  ])('%s negotiates: %s', (pathname, expected) => {
    expect(isNegotiatedPath(pathname)).toBe(expected);
  });
});
