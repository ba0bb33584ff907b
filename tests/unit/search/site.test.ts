import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Post } from '@/lib/content';

/** The published list as the content module gives it; a test replaces it as a scheduled post going live would. */
let published: Post[] = [];
/** The list that will be live at a coming post's time. */
let coming: { at: number; posts: Post[] } | undefined;

vi.mock('@/lib/content', () => ({
  publishedPosts: (at?: number) => (at !== undefined && coming && at >= coming.at ? coming.posts : published),
  publishedPost: (slug: string) => published.find((post) => post.slug === slug),
}));

const { findPublishedPosts, parseSearchQuery, prepareSearchIndex, prepareSearchIndexFor } = await import('@/lib/search/site');

const parse = (query: string) => parseSearchQuery(new URLSearchParams(query));

describe('parseSearchQuery', () => {
  it('takes q trimmed and limit 10 by default', () => {
    expect(parse('q=%20etag%20')).toEqual({ ok: true, query: { q: 'etag', limit: 10 } });
    expect(parse('q=etag&limit=50')).toEqual({ ok: true, query: { q: 'etag', limit: 50 } });
  });

  it('counts each word once, and common English words not at all', () => {
    const words = Array.from({ length: 10 }, (_, i) => `word${i}`).join(' ');
    expect(parse(new URLSearchParams({ q: `${words} ${words} the of and` }).toString())).toMatchObject({ ok: true });
  });

  it.each([
    ['', 'q', 'is required'],
    ['q=', 'q', 'must not be empty'],
    ['q=%20%20', 'q', 'must not be empty'],
    [`q=${'a'.repeat(201)}`, 'q', 'must be at most 200 characters'],
    ['q=a&q=b', 'q', 'must be given at most once'],
    ['q=a&limit=0', 'limit', 'must be an integer from 1 to 50'],
    ['q=a&limit=51', 'limit', 'must be an integer from 1 to 50'],
    ['q=a&limit=2.5', 'limit', 'must be an integer from 1 to 50'],
    ['q=a&limit=', 'limit', 'must be an integer from 1 to 50'],
    ['q=a&limit=1&limit=2', 'limit', 'must be given at most once'],
    [
      `q=${Array.from({ length: 11 }, (_, i) => `word${i}`).join('+')}`,
      'q',
      'must have at most 10 different words (repeated words and common ones such as "the" are not counted)',
    ],
  ])('refuses %j: %s %s', (query, path, message) => {
    expect(parse(query)).toEqual({ ok: false, errors: [{ path, message }] });
  });
});

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

  it('answers from the index built ahead for a coming post’s time at once when that post is live, and never before', async () => {
    vi.spyOn(console, 'log').mockImplementation(() => {});
    coming = { at: 5_000, posts: [post('okapi', 'Okapis, coming soon.'), ...published] };
    const lines: string[] = [];
    prepareSearchIndexFor(5_000, (line) => lines.push(line));
    const size = coming.posts.length;
    await vi.waitFor(() =>
      expect(lines).toEqual([expect.stringMatching(new RegExp(`^search index of ${size} posts built ahead of the next post's time in \\d+ ms$`))]),
    );
    expect(slugs('okapis')).toEqual([]);
    expect(slugs('lions')).toEqual(['second']);
    // The post goes live: the first search finds it, with no index built in slices first.
    published = coming.posts;
    expect(slugs('okapis')).toEqual(['okapi']);
    expect(slugs('lions')).toEqual(['second']);
  });
});
