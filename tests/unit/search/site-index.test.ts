import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Post } from '@/lib/content';

/** The published list as the content module gives it; a test replaces it as a scheduled post going live would. */
let published: Post[] = [];

vi.mock('@/lib/content', () => ({
  publishedPosts: () => published,
  publishedPost: (slug: string) => published.find((post) => post.slug === slug),
}));

const { findPublishedPosts, prepareSearchIndex } = await import('@/lib/search/site');

function post(slug: string, body: string): Post {
  return {
    slug,
    title: `Post ${slug}`,
    description: 'A post.',
    tags: [],
    body,
    path: `/blog/${slug}`,
    url: `https://example.com/blog/${slug}`,
    markdownUrl: `https://example.com/blog/${slug}.md`,
  } as unknown as Post;
}

const slugs = (q: string) => findPublishedPosts({ q, limit: 10 }).hits.map((hit) => hit.post.slug);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the index of the published posts', () => {
  it('is built at start, then answers from it; a new published list is indexed in slices while searches answer from the last one', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    published = [post('first', 'Zebras and lions.'), post('second', 'Lions only.')];
    prepareSearchIndex();
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/^search index of 2 posts built at start in \d+ ms$/));
    expect(slugs('lions').sort()).toEqual(['first', 'second']);
    prepareSearchIndex();
    expect(log).toHaveBeenCalledTimes(1);

    // A scheduled post goes live: a new list, with one more post.
    published = [post('third', 'Giraffes, newly published.'), ...published];
    expect(slugs('giraffes')).toEqual([]);
    expect(slugs('zebras')).toEqual(['first']);
    await vi.waitFor(() => expect(slugs('giraffes')).toEqual(['third']));
    expect(log).toHaveBeenLastCalledWith(expect.stringMatching(/^search index of 3 posts built again for a new list of published posts in \d+ ms$/));
    expect(log).toHaveBeenCalledTimes(2);
  });

  it('never answers with a post the current list no longer holds, even from the last index', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    published = published.filter((entry) => entry.slug !== 'first');
    expect(slugs('zebras')).toEqual([]);
    expect(slugs('lions')).toEqual(['second']);
    await vi.waitFor(() => expect(findPublishedPosts({ q: 'lions', limit: 10 }).total).toBe(1));
  });
});
