import { describe, expect, it } from 'vitest';
import { DYNAMIC_PATHS, knownToBuild, notBuilt } from '@/lib/content/built-paths';
import type { PublishedSet } from '@/lib/content/published-set';

// Three posts: two live, one (delta-post) dated ahead of the moment the tests ask about.
const list: PublishedSet = {
  slugs: ['delta-post', 'alpha-post', 'beta-post'],
  dates: [3000, 2000, 1000],
  builtAt: 2500,
  prerendered: 1,
  blogPages: 2,
  tags: { testing: 2, café: 1 },
  apps: ['fixture-app'],
};

const live: ReadonlySet<string> = new Set(['alpha-post', 'beta-post']);

describe('knownToBuild', () => {
  it('knows the posts, tag pages, blog pages and apps the build made, and nothing else', () => {
    expect(knownToBuild(list, { post: 'alpha-post' }, live)).toBe(true);
    expect(knownToBuild(list, { post: 'gamma-post' }, live)).toBe(false);
    // Built, but dated ahead: not a post until its time.
    expect(knownToBuild(list, { post: 'delta-post' }, live)).toBe(false);
    expect(knownToBuild(list, { post: 'delta-post' }, new Set([...live, 'delta-post']))).toBe(true);
    expect(knownToBuild(list, { tag: 'testing', page: 2 }, live)).toBe(true);
    expect(knownToBuild(list, { tag: 'testing', page: 3 }, live)).toBe(false);
    expect(knownToBuild(list, { tag: 'constructor', page: 1 }, live)).toBe(false);
    expect(knownToBuild(list, { blogPage: 2 }, live)).toBe(true);
    expect(knownToBuild(list, { blogPage: 3 }, live)).toBe(false);
    expect(knownToBuild(list, { blogPage: 1 }, live)).toBe(false);
    expect(knownToBuild(list, { tag: 'testing', page: 0 }, live)).toBe(false);
    expect(knownToBuild(list, { app: 'fixture-app' }, live)).toBe(true);
    expect(knownToBuild(list, { app: 'other-app' }, live)).toBe(false);
    expect(knownToBuild(list, { sitemap: 1 }, live)).toBe(true);
    expect(knownToBuild(list, { sitemap: 3 }, live)).toBe(false);
  });
});

describe('notBuilt', () => {
  it.each([
    ['/blog/gamma-post', { answer: 'page' }],
    ['/blog/delta-post', { answer: 'page' }],
    ['/blog/delta-post.md', { answer: 'markdown' }],
    ['/blog/gamma-post.md', { answer: 'markdown' }],
    ['/blog/gamma-post/index.md', { answer: 'markdown' }],
    ['/blog/gamma-post/opengraph-image', { answer: 'card' }],
    ['/api/blog/gamma-post/markdown', { answer: 'problem', detail: 'No published post has this slug.' }],
    ['/tags/made-up', { answer: 'page' }],
    ['/tags/made-up.md', { answer: 'markdown' }],
    ['/tags/made-up/index.md', { answer: 'markdown' }],
    ['/tags/made-up/rss.xml', { answer: 'page' }],
    ['/tags/a%00b.md', { answer: 'markdown' }],
    ['/tags/testing/page/3', { answer: 'page' }],
    ['/tags/testing/page/02', { answer: 'page' }],
    ['/tags/made-up/page/2', { answer: 'page' }],
    ['/blog/page/3', { answer: 'page' }],
    ['/blog/page/two', { answer: 'page' }],
    ['/blog/page/1', { answer: 'page' }],
    ['/tags/testing/page/1', { answer: 'page' }],
    ['/sitemaps/3.xml', { answer: 'page' }],
    ['/sitemaps/made-up.xml', { answer: 'page' }],
    ['/api/apps/other-app/download', { answer: 'problem', detail: 'No desktop app has this slug.' }],
  ])('answers %s before rendering it', (pathname, answer) => {
    expect(notBuilt(pathname, list, live)).toEqual(answer);
  });

  it.each(DYNAMIC_PATHS)('answers every made-up value of %s, short or long', (shape) => {
    for (const value of ['made-up', `made-up-${'x'.repeat(500)}`]) expect(notBuilt(shape.replace('X', value).replace('N', '99'), list, live)).toBeDefined();
  });

  it.each([
    '/blog/alpha-post',
    '/blog/beta-post.md',
    '/blog/alpha-post/index.md',
    '/blog/alpha-post/opengraph-image',
    '/api/blog/beta-post/markdown',
    '/tags/testing',
    '/tags/testing.md',
    '/tags/testing/rss.xml',
    '/tags/testing/page/2',
    '/tags/caf%C3%A9',
    '/blog/page/2',
    '/sitemaps/1.xml',
    '/api/apps/fixture-app/download',
    '/blog',
    '/tags',
    '/about',
  ])('leaves %s to its route', (pathname) => {
    expect(notBuilt(pathname, list, live)).toBeUndefined();
  });
});
