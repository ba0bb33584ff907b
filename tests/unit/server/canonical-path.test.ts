import { describe, expect, it } from 'vitest';
import { canonicalPath } from '@/lib/server/canonical-path';

describe('the canonical spelling of a path', () => {
  it.each([
    ['/', '/'],
    ['/blog/etags', '/blog/etags'],
    ['/blog/%65tags', '/blog/etags'],
    ['/blog/%65T%61gs', '/blog/eTags'],
    ['/%2Ewell-known/api-catalog', '/.well-known/api-catalog'],
    ['/blog/e%7etags%2D%5F', '/blog/e~tags-_'],
    ['/blog/a%2fb', '/blog/a%2Fb'],
    ['/blog/a%2Fb', '/blog/a%2Fb'],
    ['/blog/a%21', '/blog/a%21'],
    ['/blog/caf%c3%a9', '/blog/caf%C3%A9'],
    ['/blog/%2565tags', '/blog/%2565tags'],
    ['/x/../blog/etags', '/blog/etags'],
    ['/x/%2e%2E/blog/etags', '/blog/etags'],
    ['/../blog/./etags', '/blog/etags'],
    ['/blog/etags#top', '/blog/etags'],
    ['/blog/etags/..', undefined],
    ['/blog/etags/', undefined],
    ['//blog/etags', undefined],
    ['/blog//etags', undefined],
    ['/blog\\etags', undefined],
    ['/blog/a%zz', undefined],
    ['/blog/a%4', undefined],
    ['*', undefined],
    ['http://example.com/blog/etags', undefined],
  ])('%s is %s', (target, expected) => {
    expect(canonicalPath(target)).toBe(expected);
  });
});
