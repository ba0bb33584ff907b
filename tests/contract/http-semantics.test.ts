import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { get, url } from '../support/http';

/** Every read endpoint and agent file, with the Content-Type the spec names. */
const READS: [string, string, Record<string, string>?][] = [
  ['/api/blog', 'application/json; charset=utf-8'],
  ['/api/blog?limit=2', 'application/json; charset=utf-8'],
  ['/api/blog/alpha-post/markdown', 'text/markdown; charset=utf-8'],
  ['/blog/alpha-post.md', 'text/markdown; charset=utf-8'],
  ['/blog/alpha-post', 'text/markdown; charset=utf-8', { Accept: 'text/markdown' }],
  ['/blog/alpha-post', 'text/html; charset=utf-8', { Accept: 'text/html' }],
  ['/api/home/markdown', 'text/markdown; charset=utf-8'],
  ['/api/rss', 'application/rss+xml; charset=utf-8'],
  ['/llms.txt', 'text/markdown; charset=utf-8'],
  ['/.well-known/llms.txt', 'text/markdown; charset=utf-8'],
  ['/llms-full.txt', 'text/markdown; charset=utf-8'],
  ['/pricing.md', 'text/markdown; charset=utf-8'],
  ['/openapi.json', 'application/json; charset=utf-8'],
  ['/.well-known/api-catalog', 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'],
  ['/sitemap.xml', 'application/xml; charset=utf-8'],
  ['/robots.txt', 'text/plain; charset=utf-8'],
  ['/license.xml', 'application/rsl+xml; charset=utf-8'],
];

const MARKDOWN_AND_AGENT_FILES = READS.filter(
  ([pathname, type]) => type.startsWith('text/markdown') || (!pathname.startsWith('/api/') && !pathname.startsWith('/blog/')),
);

describe.each(READS)('GET %s', (pathname, contentType, headers = {}) => {
  it(`answers 200 ${contentType} with a strong ETag, Last-Modified, CORS and a cacheable Cache-Control`, async () => {
    const response = await get(pathname, headers);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    const cacheControl = response.headers.get('cache-control') ?? '';
    expect(cacheControl).toMatch(/public/);
    expect(cacheControl).not.toMatch(/no-store|private/);
    if (!contentType.startsWith('text/html')) expect(Number.isNaN(Date.parse(response.headers.get('last-modified') ?? ''))).toBe(false);
  });

  it('varies only on request headers that change it', async () => {
    const vary = (await get(pathname, headers)).headers.get('vary') ?? '';
    const names = vary.split(',').map((name) => name.trim().toLowerCase());
    const negotiated = pathname.startsWith('/blog/') && !pathname.endsWith('.md');
    // Next's client-router headers change what an HTML page answers, and nothing else; a
    // negotiated URL's markdown variant names them too, as its HTML variant does.
    if (!contentType.startsWith('text/html') && !negotiated) expect(names.filter((name) => name === 'rsc' || name.startsWith('next-router'))).toEqual([]);
    else expect(names).toContain('rsc');
    if (negotiated) expect(names).toContain('accept');
  });

  it('answers HEAD with the same headers and no body', async () => {
    const [full, head] = [await get(pathname, headers), await get(pathname, headers, 'HEAD')];
    expect(head.status).toBe(200);
    for (const name of ['content-type', 'etag', 'last-modified', 'cache-control', 'access-control-allow-origin']) {
      expect(head.headers.get(name), name).toBe(full.headers.get(name));
    }
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers a conditional GET with 304 and no body, and a stale validator with 200', async () => {
    const etag = (await get(pathname, headers)).headers.get('etag') ?? '';
    const notModified = await get(pathname, { ...headers, 'If-None-Match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await notModified.arrayBuffer()).byteLength).toBe(0);
    const listed = await get(pathname, { ...headers, 'If-None-Match': `"stale", ${etag}` });
    expect(listed.status).toBe(304);
    const stale = await get(pathname, { ...headers, 'If-None-Match': '"stale"' });
    expect(stale.status).toBe(200);
  });
});

describe('validators follow the bytes', () => {
  it('gives the markdown and HTML variants of a post different ETags', async () => {
    const markdown = await get('/blog/alpha-post', { Accept: 'text/markdown' });
    const html = await get('/blog/alpha-post', { Accept: 'text/html' });
    expect(markdown.headers.get('etag')).not.toBe(html.headers.get('etag'));
    const crossed = await get('/blog/alpha-post', { Accept: 'text/html', 'If-None-Match': markdown.headers.get('etag') ?? '' });
    expect(crossed.status).toBe(200);
  });

  it('gives the same post the same ETag on all three markdown URLs', async () => {
    const tags = await Promise.all(
      [get('/blog/alpha-post.md'), get('/api/blog/alpha-post/markdown'), get('/blog/alpha-post', { Accept: 'text/markdown' })].map(async (response) =>
        (await response).headers.get('etag'),
      ),
    );
    expect(new Set(tags).size).toBe(1);
  });

  it('compresses for clients that accept gzip, with its own validator', async () => {
    const raw = (encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get(url('/openapi.json'), { headers: { 'Accept-Encoding': encoding } }, (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    const [zipped, plain] = [await raw('gzip, deflate'), await raw('identity')];
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary?.toLowerCase()).toContain('accept-encoding');
    expect(zipped.headers.etag).toMatch(/-gz"$/);
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.etag).not.toBe(zipped.headers.etag);
  });

  it('answers 304 only to the ETag of the encoding it would send (RFC 9111 §4.3.4), and another encoding’s tag with the whole body', async () => {
    const ask = (headers: Record<string, string>) =>
      new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get(url('/openapi.json'), { headers }, (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    const copies = { br: await ask({ 'Accept-Encoding': 'br' }), gzip: await ask({ 'Accept-Encoding': 'gzip' }), identity: await ask({}) };
    const tags = Object.fromEntries(Object.entries(copies).map(([coding, copy]) => [coding, String(copy.headers.etag)]));
    expect(new Set(Object.values(tags)).size).toBe(3);
    for (const [coding, accept] of [
      ['br', { 'Accept-Encoding': 'br' }],
      ['gzip', { 'Accept-Encoding': 'gzip' }],
      ['identity', {}],
    ] as const) {
      for (const [other, tag] of Object.entries(tags)) {
        const answer = await ask({ ...accept, 'If-None-Match': tag });
        const label = `${coding} request, ${other}'s ETag`;
        if (other === coding) {
          expect(answer.status, label).toBe(304);
          expect(answer.headers.etag, label).toBe(tag);
        } else {
          expect(answer.status, label).toBe(200);
          expect(answer.headers.etag, label).toBe(tags[coding]);
          expect(answer.headers['content-encoding'], label).toBe(coding === 'identity' ? undefined : coding);
          expect(answer.body.equals(copies[coding].body), label).toBe(true);
        }
      }
    }
  });
});

describe('Vary on a negotiated URL', () => {
  it.each(['/blog/alpha-post', '/', '/docs/api'])('%s sends one Vary for its HTML and its markdown, so a shared cache keeps both', async (pathname) => {
    const html = await get(pathname, { Accept: 'text/html' });
    const markdown = await get(pathname, { Accept: 'text/markdown' });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(markdown.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(markdown.headers.get('vary')).toBe(html.headers.get('vary'));
    const names = (html.headers.get('vary') ?? '').split(',').map((name) => name.trim().toLowerCase());
    expect(names).toEqual(expect.arrayContaining(['rsc', 'accept', 'accept-encoding']));
    // HEAD and 304 say the same.
    expect((await get(pathname, { Accept: 'text/markdown' }, 'HEAD')).headers.get('vary')).toBe(html.headers.get('vary'));
    const revalidated = await get(pathname, { Accept: 'text/html', 'If-None-Match': html.headers.get('etag') ?? '' });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('vary')).toBe(html.headers.get('vary'));
  });
});

describe.each(MARKDOWN_AND_AGENT_FILES)('%s carries the site policy', (pathname, contentType, headers = {}) => {
  it('as a Content-Signal header', async () => {
    const response = await get(pathname, headers);
    expect(response.headers.get('content-signal')).toBe('search=yes, ai-input=yes, ai-train=no');
    if (contentType.startsWith('text/markdown') && pathname.includes('blog/')) {
      expect(response.headers.get('link')).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/blog\/alpha-post>; rel="canonical"/);
    }
  });
});

describe('reads are never limited', () => {
  it('answers 300 rapid GETs without a single 429', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_, index) => get(index % 2 ? '/api/blog' : '/blog/alpha-post.md').then((response) => response.status)),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });
});
