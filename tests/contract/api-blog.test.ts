import { describe, expect, it } from 'vitest';
import { get, url } from '../support/http';

const NEWEST_FIRST = ['escaping-post', 'beta-post', 'gamma-post', 'alpha-post'];

describe('GET /api/blog', () => {
  it('lists every published post, newest first, ties by slug', async () => {
    const response = await get('/api/blog');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as { posts: Record<string, unknown>[] };
    expect(body.posts.map((post) => post.slug)).toEqual(NEWEST_FIRST);
  });

  it('gives each entry its fields and absolute URLs', async () => {
    const { posts } = (await (await get('/api/blog')).json()) as { posts: Record<string, unknown>[] };
    const alpha = posts.find((post) => post.slug === 'alpha-post');
    expect(alpha).toEqual({
      slug: 'alpha-post',
      title: 'Alpha post',
      description: 'The first fixture post, with code and a table.',
      date: '2025-01-10',
      updated: '2025-02-01',
      tags: ['http', 'testing'],
      url: url('/blog/alpha-post'),
      markdownUrl: url('/blog/alpha-post.md'),
    });
    const gamma = posts.find((post) => post.slug === 'gamma-post');
    expect(gamma).not.toHaveProperty('updated');
    expect(gamma?.tags).toEqual([]);
  });

  it('keeps markup in a title as data, valid JSON', async () => {
    const { posts } = (await (await get('/api/blog')).json()) as { posts: { slug: string; title: string }[] };
    expect(posts[0]?.title).toBe('Tom & Jerry <script>alert(1)</script> ]]> here');
  });

  it.each([
    ['1', 1],
    ['3', 3],
    ['4', 4],
    ['1000', 4],
    ['007', 4],
    ['99999999999999999999999', 4],
  ])('limit=%s returns the newest %i', async (limit, count) => {
    const response = await get(`/api/blog?limit=${limit}`);
    expect(response.status).toBe(200);
    const { posts } = (await response.json()) as { posts: { slug: string }[] };
    expect(posts.map((post) => post.slug)).toEqual(NEWEST_FIRST.slice(0, count));
  });

  it.each(['0', '-1', '2.5', 'abc', '', '1e2', ' 1', '0x10', '1&limit=2'])('limit=%s is a 400 problem naming the field', async (limit) => {
    const response = await get(`/api/blog?limit=${limit}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const body = (await response.json()) as { status: number; errors: { path: string; message: string }[] };
    expect(body.status).toBe(400);
    expect(body.errors[0]?.path).toBe('limit');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it('ignores other query parameters', async () => {
    const response = await get('/api/blog?utm_source=feed');
    expect(response.status).toBe(200);
  });
});

describe('GET /api/apps/{slug}/download', () => {
  it('redirects 302 to the current build, uncached', async () => {
    const response = await get('/api/apps/fixture-app/download');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://downloads.example.com/fixture-app/2.3.4/fixture-app.dmg');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it.each(['no-such-app', '..%2F..%2Fpackage.json'])('answers a 404 problem for the unknown app %s', async (slug) => {
    const response = await get(`/api/apps/${slug}/download`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(response.headers.get('location')).toBeNull();
  });
});

describe('GET /api/home/markdown', () => {
  it('is the home page as markdown, linking the latest posts as markdown', async () => {
    const response = await get('/api/home/markdown');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const body = await response.text();
    expect(body).toMatch(/^# Fixture home\n/);
    expect(body).toContain('Welcome to the **fixture** site.');
    const links = [...body.matchAll(/\]\((\S+\.md)\)/g)].map((match) => match[1]);
    expect(links).toEqual(NEWEST_FIRST.map((slug) => url(`/blog/${slug}.md`)));
  });
});
