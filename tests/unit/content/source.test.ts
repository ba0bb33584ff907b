import { describe, expect, it } from 'vitest';
import { publishedPosts } from '@/lib/content';
import { blogPageParams, lastModified, latestPosts, postParams, tagPageParams, tagParams } from '@/lib/content/source';
import { FIXTURE_SITE, PUBLISHED_SLUGS, withFixtureContent } from '../../support/fixture-content';

withFixtureContent({ postsPerPage: 1 });

describe('the content source', () => {
  it('gives each published post its page path, absolute URL and markdown URL', () => {
    const alpha = publishedPosts().find((post) => post.slug === 'alpha-post');
    expect(alpha).toMatchObject({
      path: '/blog/alpha-post',
      url: `${FIXTURE_SITE}/blog/alpha-post`,
      markdownUrl: `${FIXTURE_SITE}/blog/alpha-post.md`,
    });
  });

  it('builds one post page per published post, and none for a draft or a future post', () => {
    expect(postParams()).toEqual(PUBLISHED_SLUGS.map((slug) => ({ slug })));
  });

  it('builds one tag page per tag of a post it holds, a post dated ahead included (its tag is a 404 until the post is live)', () => {
    const params = tagParams().map(({ tag }) => tag);
    // "unpublished-only" is carried by the draft and by future-post, dated 2999.
    expect(params.toSorted()).toEqual(['escaping', 'http', 'testing', 'unpublished-only']);
    expect(tagParams()).toEqual(tagParams());
  });

  it('builds the later pages of the blog and of each tag from the page size, counting the posts dated ahead', () => {
    // One post a page: four published posts and future-post fill /blog and /blog/page/2 to 5; "testing" has three.
    expect(blogPageParams(1)).toEqual([{ page: '2' }, { page: '3' }, { page: '4' }, { page: '5' }]);
    expect(tagPageParams(1)).toEqual([
      { tag: 'testing', page: '2' },
      { tag: 'testing', page: '3' },
    ]);
  });

  it('dates the site by its newest published change, and a list by its own posts', () => {
    expect(lastModified()).toBe(Date.parse('2025-04-01T09:30:00+02:00'));
    // alpha-post, the only "http" post, was updated after it was published: 2025-02-01, midnight in the site's New York.
    expect(lastModified(publishedPosts().filter((post) => post.tags.includes('http')))).toBe(Date.parse('2025-02-01T00:00:00-05:00'));
    expect(lastModified([])).toBeUndefined();
  });

  it('gives the latest posts, newest first, at most as many as are published', () => {
    expect(latestPosts(2).map((post) => post.slug)).toEqual(PUBLISHED_SLUGS.slice(0, 2));
    expect(latestPosts(10).map((post) => post.slug)).toEqual(PUBLISHED_SLUGS);
  });
});
