import { describe, expect, it } from 'vitest';
import type { Post } from '@/lib/content';
import { markdownPostResponse } from '@/lib/http/markdown-post';

describe('markdownPostResponse', () => {
  it("serves the post's source file byte for byte, canonical to its page, dated by its last change", async () => {
    const source = '---\ntitle: A post\n---\n\nBody with “quotes” and a trailing space \n';
    const post = {
      source,
      url: 'https://blog.example.test/blog/a-post',
      date: '2026-01-01',
      dateMillis: Date.UTC(2026, 0, 1),
      updated: '2026-02-03',
      updatedMillis: Date.UTC(2026, 1, 3),
    } as unknown as Post;
    const response = markdownPostResponse(post);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('link')).toBe('<https://blog.example.test/blog/a-post>; rel="canonical"; type="text/html"');
    expect(response.headers.get('last-modified')).toBe('Tue, 03 Feb 2026 00:00:00 GMT');
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(source))).toBe(true);
  });
});
