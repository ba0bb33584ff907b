import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { url } from '../support/http';

type Raw = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

/** A GET with the path sent exactly as written: fetch would resolve dot segments first. */
function rawGet(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const { host, port } = new URL(url('/'));
  return new Promise((resolve, reject) => {
    http
      .get({ host: host.replace(/:\d+$/, ''), port, path, headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

/** Distinct spellings of one path: a different set of its letters percent-encoded in each, hex in either case. */
function spellings(path: string, count: number): string[] {
  const letters = [...path].map((char, index) => (/[a-z]/.test(char) ? index : -1)).filter((index) => index >= 0);
  return Array.from({ length: count }, (_, n) => {
    const chars = [...path];
    letters.forEach((index, bit) => {
      if ((n + 1) & (1 << (bit % 16))) {
        const hex = chars[index]!.charCodeAt(0).toString(16);
        chars[index] = `%${bit % 2 ? hex.toUpperCase() : hex}`;
      }
    });
    return chars.join('');
  });
}

describe('one entry per resource, whatever the spelling', () => {
  it('answers every spelling of a post URL with the same page and ETag', async () => {
    const canonical = await rawGet('/blog/alpha-post', { Accept: 'text/html' });
    expect(canonical.status).toBe(200);
    const odd = [...spellings('/blog/alpha-post', 40), '/x/../blog/alpha-post', '/blog/%2E/alph%61-post', '/blog/alpha-post#top'];
    expect(new Set(odd).size).toBe(odd.length);
    for (const path of odd) {
      const response = await rawGet(path, { Accept: 'text/html' });
      expect(response.status, path).toBe(200);
      expect(response.headers.etag, path).toBe(canonical.headers.etag);
      expect(response.body.equals(canonical.body), path).toBe(true);
    }
  });

  it('gives every spelling the same markdown variant and the same gzip copy', async () => {
    const markdown = await rawGet('/blog/beta-post', { Accept: 'text/markdown', 'Accept-Encoding': 'gzip' });
    const spelled = await rawGet('/blog/b%65ta-p%6Fst', { Accept: 'text/markdown', 'Accept-Encoding': 'gzip' });
    expect(spelled.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(spelled.headers.etag).toBe(markdown.headers.etag);
    expect(spelled.headers['content-encoding']).toBe(markdown.headers['content-encoding']);
    expect(spelled.body.equals(markdown.body)).toBe(true);
  });

  it('answers concurrent first requests for a page in different spellings with one ETag', async () => {
    const responses = await Promise.all(spellings('/api/blog/gamma-post/markdown', 12).map((path) => rawGet(path)));
    expect(responses.map(({ status }) => status)).toEqual(Array(12).fill(200));
    expect(new Set(responses.map(({ headers }) => headers.etag)).size).toBe(1);
    expect(new Set(responses.map(({ body }) => body.toString())).size).toBe(1);
  });

  it('never lets an escaped slash reach the resource of a slash', async () => {
    expect((await rawGet('/api/blog/alpha-post/markdown')).status).toBe(200);
    for (const path of ['/api/blog/alpha-post%2Fmarkdown', '/api/blog/alpha-post%2fmarkdown', '/api%2Fblog']) {
      expect((await rawGet(path)).status, path).toBe(404);
    }
  });

  it('answers a built file with a query from the entry of its path, compressed like it', async () => {
    const plain = await rawGet('/openapi.json');
    const zipped = await rawGet('/openapi.json', { 'Accept-Encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    for (const query of ['?1', '?2', '?utm_source=feed']) {
      const response = await rawGet(`/openapi.json${query}`, { 'Accept-Encoding': 'gzip' });
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(response.headers.etag).toBe(zipped.headers.etag);
      expect(gunzipSync(response.body).equals(plain.body)).toBe(true);
    }
  });

  it('still answers a page after a flood of spellings and queries', async () => {
    for (const path of [...spellings('/blog/gamma-post', 100), ...Array.from({ length: 100 }, (_, i) => `/api/rss?${i}`)]) {
      expect((await rawGet(path, { 'Accept-Encoding': 'gzip' })).status, path).toBe(200);
    }
    const page = await rawGet('/blog/alpha-post.md');
    expect(page.status).toBe(200);
    expect(page.body.toString()).toMatch(/^---\n/);
  });
});

describe('queries', () => {
  it('answers any query on a built file with that file, and still answers a query a route reads', async () => {
    const plain = await rawGet('/llms-full.txt');
    const queried = await Promise.all(['/llms-full.txt?1', '/llms-full.txt?utm_source=x', '/llms-full.txt?'].map((path) => rawGet(path)));
    for (const response of queried) {
      expect(response.status).toBe(200);
      expect(response.headers.etag).toBe(plain.headers.etag);
      expect(response.body.equals(plain.body)).toBe(true);
    }
    const list = await rawGet('/api/blog');
    const limited = await rawGet('/api/blog?limit=1');
    expect((JSON.parse(list.body.toString()) as { posts: unknown[] }).posts.length).toBeGreaterThan(1);
    expect((JSON.parse(limited.body.toString()) as { posts: unknown[] }).posts).toHaveLength(1);
    expect((await rawGet('/api/blog?limit=x')).status).toBe(400);
  });
});

describe('brotli', () => {
  const vary = (response: Raw) => String(response.headers.vary ?? '').toLowerCase();

  for (const path of ['/docs/api.md', '/blog/alpha-post', '/openapi.json']) {
    it(`sends ${path} in brotli to a client that accepts it, gzip to one that refuses brotli, and the bytes to one that names neither`, async () => {
      const plain = await rawGet(path);
      const [br, gzip, identity] = [
        await rawGet(path, { 'Accept-Encoding': 'br, gzip' }),
        await rawGet(path, { 'Accept-Encoding': 'br;q=0, gzip' }),
        await rawGet(path, { 'Accept-Encoding': 'identity' }),
      ];
      expect(br.status).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
      expect(br.body.length).toBeLessThan(gzip.body.length);
      expect(Number(br.headers['content-length'])).toBe(br.body.length);
      expect(br.headers.etag).toMatch(/-br"$/);
      expect(gzip.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true);
      for (const response of [plain, identity]) {
        expect(response.headers['content-encoding']).toBeUndefined();
        expect(response.body.equals(plain.body)).toBe(true);
      }
      for (const response of [br, gzip, identity, plain]) expect(vary(response)).toContain('accept-encoding');
      expect(new Set([br.headers.etag, gzip.headers.etag, plain.headers.etag]).size).toBe(3);
    });
  }

  it('answers a conditional request with the brotli ETag with 304 and that ETag', async () => {
    const br = await rawGet('/llms.txt', { 'Accept-Encoding': 'br' });
    expect(br.headers['content-encoding']).toBe('br');
    const again = await rawGet('/llms.txt', { 'Accept-Encoding': 'br', 'If-None-Match': String(br.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(br.headers.etag);
    expect(again.body.length).toBe(0);
  });
});
