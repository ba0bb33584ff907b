import { describe, expect, it } from 'vitest';
import { DYNAMIC_PATHS, knownToBuild, notBuilt } from '@/lib/content/built-paths';
import type { LiveView, PublishedSet } from '@/lib/content/published-set';

// Three posts: two live, one (delta-post) dated ahead of the moment the tests ask about; delta-post
// alone carries the tag "secret" and fills the second page of /blog and the third of "testing".
const list: PublishedSet = {
  slugs: ['delta-post', 'alpha-post', 'beta-post'],
  dates: [3000, 2000, 1000],
  builtAt: 2500,
  prerendered: 1,
  postTags: [['secret', 'testing'], ['testing', 'café'], ['testing']],
  apps: ['fixture-app'],
};

/** What is live at 2500 with two posts a page. */
const live: LiveView = {
  slugs: new Set(['alpha-post', 'beta-post']),
  blogPages: 1,
  tagPages: new Map([
    ['testing', 1],
    ['café', 1],
  ]),
};
/** What is live once delta-post's time has come, with one post a page. */
const later: LiveView = {
  slugs: new Set(list.slugs),
  blogPages: 3,
  tagPages: new Map([
    ['secret', 1],
    ['testing', 3],
    ['café', 1],
  ]),
};

describe('knownToBuild', () => {
  it('knows the posts, tag pages, blog pages and apps that exist now, and nothing else', () => {
    expect(knownToBuild(list, { post: 'alpha-post' }, live)).toBe(true);
    expect(knownToBuild(list, { post: 'gamma-post' }, live)).toBe(false);
    // Built, but dated ahead: not a post until its time.
    expect(knownToBuild(list, { post: 'delta-post' }, live)).toBe(false);
    expect(knownToBuild(list, { post: 'delta-post' }, later)).toBe(true);
    expect(knownToBuild(list, { tag: 'testing', page: 1 }, live)).toBe(true);
    expect(knownToBuild(list, { tag: 'testing', page: 2 }, live)).toBe(false);
    expect(knownToBuild(list, { tag: 'testing', page: 3 }, later)).toBe(true);
    expect(knownToBuild(list, { tag: 'testing', page: 4 }, later)).toBe(false);
    expect(knownToBuild(list, { tag: 'constructor', page: 1 }, live)).toBe(false);
    expect(knownToBuild(list, { blogPage: 2 }, later)).toBe(true);
    expect(knownToBuild(list, { blogPage: 4 }, later)).toBe(false);
    expect(knownToBuild(list, { blogPage: 1 }, later)).toBe(false);
    expect(knownToBuild(list, { tag: 'testing', page: 0 }, live)).toBe(false);
    expect(knownToBuild(list, { app: 'fixture-app' }, live)).toBe(true);
    expect(knownToBuild(list, { app: 'other-app' }, live)).toBe(false);
  });

  it('knows no tag, tag page or blog page that only a post dated ahead fills, until its time', () => {
    expect(knownToBuild(list, { tag: 'secret', page: 1 }, live)).toBe(false);
    expect(knownToBuild(list, { tag: 'secret', page: 1 }, later)).toBe(true);
    expect(knownToBuild(list, { blogPage: 2 }, live)).toBe(false);
    expect(knownToBuild(list, { tag: 'testing', page: 2 }, live)).toBe(false);
  });

  it('knows sitemap files only past 50,000 URLs, as many as they fill', () => {
    expect(knownToBuild(list, { sitemap: 1 }, later, 5)).toBe(false);
    const large: LiveView = { ...later, blogPages: 50_000 };
    expect(knownToBuild(list, { sitemap: 1 }, large, 5)).toBe(true);
    expect(knownToBuild(list, { sitemap: 2 }, large, 5)).toBe(true);
    expect(knownToBuild(list, { sitemap: 3 }, large, 5)).toBe(false);
    // Exactly 50,000 URLs fit the one sitemap.
    expect(knownToBuild(list, { sitemap: 1 }, { ...later, blogPages: 50_000 - 3 - 5 - 5 + 1 }, 5)).toBe(false);
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
    ['/tags/testing/page/2', { answer: 'page' }],
    ['/tags/secret', { answer: 'page' }],
    ['/tags/secret.md', { answer: 'markdown' }],
    ['/tags/secret/index.md', { answer: 'markdown' }],
    ['/tags/secret/rss.xml', { answer: 'page' }],
    ['/blog/page/2', { answer: 'page' }],
    ['/sitemaps/1.xml', { answer: 'page' }],
    ['/tags/testing/page/02', { answer: 'page' }],
    ['/tags/made-up/page/2', { answer: 'page' }],
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
    '/tags/caf%C3%A9',
    '/api/apps/fixture-app/download',
    '/blog',
    '/tags',
    '/about',
  ])('leaves %s to its route', (pathname) => {
    expect(notBuilt(pathname, list, live)).toBeUndefined();
  });

  it.each(['/tags/secret', '/tags/secret.md', '/tags/secret/rss.xml', '/tags/testing/page/3', '/blog/page/3', '/blog/delta-post'])(
    'leaves %s to its route once the post dated ahead is live',
    (pathname) => {
      expect(notBuilt(pathname, list, later)).toBeUndefined();
    },
  );
});
