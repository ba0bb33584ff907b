import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { get, varyOf } from '../support/http';

const sourceOf = (slug: string) => fs.readFileSync(path.join(inject('contentDir'), 'posts', `${slug}.md`));
const bytes = async (response: Response) => Buffer.from(await response.arrayBuffer());

describe('a post as markdown, three ways', () => {
  for (const slug of ['alpha-post', 'escaping-post']) {
    it(`serves ${slug} byte-identical to its source file from all three URLs`, async () => {
      const expected = sourceOf(slug);
      const responses = await Promise.all([get(`/api/blog/${slug}/markdown`), get(`/blog/${slug}.md`), get(`/blog/${slug}`, { Accept: 'text/markdown' })]);
      for (const response of responses) {
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
        expect(response.headers.get('link')).toContain(`/blog/${slug}>; rel="canonical"`);
        expect((await bytes(response)).equals(expected)).toBe(true);
      }
    });
  }

  it('starts with the YAML frontmatter', async () => {
    const body = await (await get('/blog/alpha-post.md')).text();
    expect(body.startsWith('---\ntitle: Alpha post\n')).toBe(true);
  });
});

describe('content negotiation on /blog/{slug}', () => {
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
  const table: [string | undefined, 'markdown' | 'html'][] = [
    ['text/markdown', 'markdown'],
    ['text/markdown, text/html;q=0.9', 'markdown'],
    ['text/html, text/markdown;q=0.9', 'html'],
    ['text/markdown;q=0', 'html'],
    [browser, 'html'],
    ['*/*', 'html'],
    ['text/*', 'html'],
    [undefined, 'html'],
  ];
  for (const [accept, variant] of table) {
    it(`Accept: ${accept ?? '(none)'} gets ${variant}, with Vary: Accept`, async () => {
      const response = await get('/blog/alpha-post', accept === undefined ? {} : { Accept: accept });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(variant === 'markdown' ? 'text/markdown; charset=utf-8' : 'text/html; charset=utf-8');
      expect(varyOf(response)).toContain('accept');
      const body = await response.text();
      if (variant === 'markdown') expect(body.startsWith('---\n')).toBe(true);
      else expect(body).toMatch(/^<!DOCTYPE html>/i);
    });
  }

  it('keeps Vary: Accept on a HEAD of either variant', async () => {
    for (const accept of ['text/markdown', 'text/html']) {
      const response = await get('/blog/alpha-post', { Accept: accept }, 'HEAD');
      expect(response.status).toBe(200);
      expect(varyOf(response)).toContain('accept');
    }
  });

  it('does not leak the internal rewrite target', async () => {
    const response = await get('/blog/alpha-post.md');
    expect(response.headers.get('x-middleware-rewrite')).toBeNull();
  });
});

describe('markdown that finds nothing', () => {
  for (const slug of ['no-such-post', 'draft-post', 'future-post']) {
    it(`answers a short text/markdown 404 for /blog/${slug}.md and negotiated /blog/${slug}`, async () => {
      for (const response of [await get(`/blog/${slug}.md`), await get(`/blog/${slug}`, { Accept: 'text/markdown' })]) {
        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
        const body = await response.text();
        expect(body).toMatch(/^# Not found/);
        expect(body).not.toContain('SECRET');
      }
    });

    it(`answers a problem+json 404 for /api/blog/${slug}/markdown`, async () => {
      const response = await get(`/api/blog/${slug}/markdown`);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await response.json()).toMatchObject({ status: 404, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });
    });
  }

  const traversals = ['..%2F..%2Fpackage.json', '..%2f..%2f..%2fetc%2fpasswd', '%2e%2e%2fhome', '....%2F%2Fpackage', 'alpha-post%00'];
  for (const attempt of traversals) {
    it(`refuses the path traversal ${attempt} on every markdown route without reading a file`, async () => {
      for (const response of [
        await get(`/blog/${attempt}.md`),
        await get(`/api/blog/${attempt}/markdown`),
        await get(`/blog/${attempt}`, { Accept: 'text/markdown' }),
      ]) {
        expect(response.status).toBe(404);
        const body = await response.text();
        expect(body).not.toContain('"dependencies"');
        expect(body).not.toContain('root:');
      }
    });
  }
});
