import { describe, expect, it } from 'vitest';
import { contentPaths, publishedPost, publishedPosts, site, tagBySlug, tags, tagSlug, urls } from '@/lib/content';
import { FIXTURE_SITE, PUBLISHED_SLUGS, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

describe('publishedPosts', () => {
  it('lists only published posts, newest first, a date tie broken by slug', () => {
    expect(publishedPosts().map((post) => post.slug)).toEqual(PUBLISHED_SLUGS);
    expect(publishedPosts().every((post) => post.published)).toBe(true);
  });

  it('finds a published post by slug, and never a draft or a future post', () => {
    expect(publishedPost('beta-post')?.title).toBe('Beta post');
    expect(publishedPost('draft-post')).toBeUndefined();
    expect(publishedPost('future-post')).toBeUndefined();
    expect(publishedPost('../home')).toBeUndefined();
  });
});

describe('tags', () => {
  it('lists the tags of published posts, most used first, each with its page path and posts', () => {
    const [first, ...rest] = tags();
    expect(first).toMatchObject({ name: 'testing', slug: 'testing', path: '/tags/testing' });
    expect(first?.posts.map((post) => post.slug)).toEqual(['beta-post', 'alpha-post']);
    expect(rest.map((tag) => tag.slug)).toEqual(['escaping', 'http']);
  });

  it('finds a tag by its URL slug', () => {
    expect(tagBySlug('http')?.posts.map((post) => post.slug)).toEqual(['alpha-post']);
    expect(tagBySlug('unpublished-only')).toBeUndefined();
  });

  it('slugs a tag name for its URL, and never to nothing', () => {
    expect(tagSlug('Node.js Tips')).toBe('nodejs-tips');
    expect(tagSlug('!!!')).toBe('tag');
  });
});

describe('URLs', () => {
  it('spells post and tag URLs under the configured site', () => {
    expect(contentPaths.postMarkdown('a')).toBe('/blog/a.md');
    expect(contentPaths.tagRss('b')).toBe('/tags/b/rss.xml');
    expect(urls.tag('Node.js Tips')).toBe(`${FIXTURE_SITE}/tags/nodejs-tips`);
    expect(urls.rss()).toBe(`${FIXTURE_SITE}/api/rss`);
  });
});

describe('site', () => {
  it('reads the site facts', () => {
    expect(site().name).toBe('Fixture & Co');
  });
});
