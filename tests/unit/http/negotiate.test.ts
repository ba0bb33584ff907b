import { describe, expect, it } from 'vitest';
import { negotiate, prefersMarkdown } from '@/lib/http/negotiate';

describe('prefersMarkdown', () => {
  it.each([
    ['text/markdown', true],
    ['text/markdown, text/html;q=0.9', true],
    ['text/markdown;charset=utf-8', true],
    ['TEXT/MARKDOWN', true],
    ['text/markdown, */*;q=0.1', true],
    ['text/html;q=0.5, text/markdown;q=0.6', true],
    ['text/html, text/markdown;q=0.9', false],
    ['text/markdown;q=0', false],
    ['text/markdown;q=0.000', false],
    ['text/markdown;q=0.5, text/html;q=0.5', false],
    ['*/*', false],
    ['text/*', false],
    ['text/*;q=0.9, text/html;q=0.1', true],
    ['', false],
    [null, false],
    ['garbage', false],
    ['text/markdown;q=2', false],
    // Real browser defaults
    ['text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7', false],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['text/html, application/xhtml+xml, image/jxr, */*', false],
  ])('Accept %j → markdown: %s', (accept, expected) => {
    expect(prefersMarkdown(accept)).toBe(expected);
  });

  it('lets the most specific range decide: text/* does not override an explicit text/markdown;q=0', () => {
    expect(prefersMarkdown('text/*, text/markdown;q=0')).toBe(false);
    expect(prefersMarkdown('text/markdown, text/*;q=0')).toBe(true);
  });
});

describe('negotiate', () => {
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
    expect(negotiate(pathname, undefined) !== undefined).toBe(expected);
  });

  it('gives a negotiated page the variant its Accept ranks first, with the twin it is rewritten to', () => {
    expect(negotiate('/blog/a-post', 'text/markdown')).toEqual({
      twin: { markdownPath: '/blog/a-post.md', route: '/blog/a-post/index.md' },
      variant: 'markdown',
    });
    expect(negotiate('/blog/a-post', 'text/html, text/markdown;q=0.9')?.variant).toBe('html');
    expect(negotiate('/pricing', undefined)?.variant).toBe('html');
    expect(negotiate('/api/blog', 'text/markdown')).toBeUndefined();
  });
});
