import { describe, expect, it } from 'vitest';
import { blogList, blogListSchema } from '@/lib/feeds/blog-json';
import { FIXTURE_SITE, PUBLISHED_SLUGS, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

describe('/api/blog', () => {
  it('lists every published post, newest first, each with its HTML and markdown URLs', () => {
    const list = blogListSchema.parse(blogList());
    expect(list.posts.map((post) => post.slug)).toEqual(PUBLISHED_SLUGS);
    const alpha = list.posts.at(-1);
    expect(alpha).toMatchObject({ slug: 'alpha-post', date: '2025-01-10', updated: '2025-02-01', tags: ['http', 'testing'] });
    expect([alpha?.url, alpha?.markdownUrl]).toEqual([`${FIXTURE_SITE}/blog/alpha-post`, `${FIXTURE_SITE}/blog/alpha-post.md`]);
  });

  it('leaves updated out of a post never updated', () => {
    expect(blogList().posts[0]).not.toHaveProperty('updated');
  });

  it('gives the newest posts up to limit, and all of them for a limit above the count', () => {
    expect(blogList(2).posts.map((post) => post.slug)).toEqual(PUBLISHED_SLUGS.slice(0, 2));
    expect(blogList(99).posts).toHaveLength(PUBLISHED_SLUGS.length);
  });
});
