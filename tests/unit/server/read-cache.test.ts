import { createServer, get as httpGet, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, brotliDecompressSync, constants as zlib, gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadCache, STALE_FOR_MS, type ReadCacheOptions } from '@/lib/server/read-cache';
import { ENTRY_OVERHEAD_BYTES } from '@/lib/server/read-store';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

type Page = { status?: number; type?: string; cacheControl?: string; headers?: Record<string, string>; body: string };

/**
 * The read cache in front of a renderer that answers `page(url, accept)` and records each URL
 * it is asked to render. `hold` keeps every render waiting until the server has received that
 * many requests, so concurrent first requests really overlap.
 */
async function serve(page: (url: string, accept: string) => Page, options: ReadCacheOptions & { hold?: number; delayMs?: number } = {}) {
  const rendered: string[] = [];
  const cache = createReadCache(options);
  let inFlight = 0;
  let mostInFlight = 0;
  let received = 0;
  const arrived: (() => void)[] = [];
  const allArrived = new Promise<void>((resolve) => arrived.push(resolve));
  const render = (req: IncomingMessage, res: ServerResponse) => {
    rendered.push(req.url ?? '');
    const {
      status = 200,
      type = 'text/plain; charset=utf-8',
      cacheControl = 'public, max-age=60',
      headers = {},
      body,
    } = page(req.url ?? '', req.headers.accept ?? '');
    const write = () => {
      res.writeHead(status, { ...headers, 'Content-Type': type, 'Cache-Control': cacheControl });
      res.end(body);
    };
    if (options.hold) void allArrived.then(write);
    else if (options.delayMs) {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        write();
      }, options.delayMs);
    } else write();
  };
  server = createServer((req, res) => {
    received += 1;
    if (received === options.hold) arrived.forEach((resolve) => resolve());
    if (!cache.handle(req, res, render)) res.writeHead(405).end();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server!.address() as AddressInfo).port;
  /** A GET with the path sent exactly as written (fetch would resolve dot segments first). */
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      httpGet({ host: '127.0.0.1', port, path, headers, agent: false }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
  return { get, rendered, cache, mostInFlight: () => mostInFlight };
}

const echo = (url: string): Page => ({ body: `page ${url}` });

describe('the read cache', () => {
  it('renders concurrent first requests for one URL once and answers them all with its bytes and ETag', async () => {
    const { get, rendered } = await serve(echo, { hold: 8 });
    const responses = await Promise.all(Array.from({ length: 8 }, () => get('/page')));
    expect(rendered).toEqual(['/page']);
    expect(responses.map(({ status }) => status)).toEqual(Array(8).fill(200));
    expect(new Set(responses.map(({ body }) => body.toString())).size).toBe(1);
    expect(new Set(responses.map(({ headers }) => headers.etag)).size).toBe(1);
  });

  it('keeps one entry for every spelling of a path, rendered in its canonical spelling', async () => {
    const { get, rendered } = await serve(echo);
    const spellings = [
      '/blog/etags',
      '/blog/%65tags',
      '/blog/%65t%61gs',
      '/blog/e%74ags',
      '/x/../blog/etags',
      '/blog/./%65tags',
      '/blog/%2E/etags',
      '/blog/etags#top',
    ];
    const responses = [];
    for (const spelling of spellings) responses.push(await get(spelling));
    expect(rendered).toEqual(['/blog/etags']);
    expect(responses.map(({ body }) => body.toString())).toEqual(Array(spellings.length).fill('page /blog/etags'));
    expect(new Set(responses.map(({ headers }) => headers.etag)).size).toBe(1);
  });

  it('keeps an escaped slash apart from a slash, and escapes of other characters apart from the characters', async () => {
    const { get, rendered } = await serve(echo);
    await get('/blog/a%2Fb');
    await get('/blog/a%2fb');
    await get('/blog/a/b');
    await get('/blog/a%21');
    await get('/blog/a!');
    expect(rendered).toEqual(['/blog/a%2Fb', '/blog/a/b', '/blog/a%21', '/blog/a!']);
  });

  it('keeps a variant per Accept on a negotiated path, whatever its spelling', async () => {
    const { get, rendered } = await serve((url, accept) => ({ body: `${url} as ${accept.includes('markdown') ? 'markdown' : 'html'}` }));
    const markdown = await get('/blog/%65tags', { Accept: 'text/markdown' });
    const html = await get('/blog/etags', { Accept: 'text/html' });
    expect((await get('/blog/etags', { Accept: 'text/markdown' })).body.toString()).toBe('/blog/etags as markdown');
    expect(markdown.headers.etag).not.toBe(html.headers.etag);
    expect(rendered).toEqual(['/blog/etags', '/blog/etags']);
  });

  it('answers a malformed escape, a trailing slash and an absolute URL without keeping them', async () => {
    const { get, rendered } = await serve(echo);
    for (const path of ['/blog/a%zz', '/blog/a%zz', '/blog/a/', '/blog/a/', 'http://example.com/blog/a', 'http://example.com/blog/a']) {
      expect((await get(path)).status).toBe(200);
    }
    expect(rendered).toEqual(['/blog/a%zz', '/blog/a%zz', '/blog/a/', '/blog/a/', 'http://example.com/blog/a', 'http://example.com/blog/a']);
  });

  it('lets the least recently used entries go when the bytes run out, and keeps the new ones', async () => {
    const body = 'x'.repeat(1000);
    // Room for three entries of this size.
    const { get, rendered } = await serve(() => ({ body, type: 'application/octet-stream' }), { maxBytes: 3 * (1000 + ENTRY_OVERHEAD_BYTES) + 100 });
    for (const path of ['/a', '/b', '/c', '/a', '/d', '/d', '/b', '/a', '/d']) expect((await get(path)).body.toString()).toBe(body);
    // /d pushed out /b (the least recently used once /a was read again); /b coming back pushed out /c.
    expect(rendered).toEqual(['/a', '/b', '/c', '/d', '/b']);
    await get('/c');
    expect(rendered.at(-1)).toBe('/c');
  });

  it('counts the gzip copy of an entry against its bytes', async () => {
    const text = (url: string) => `${url} `.repeat(500);
    const size = Buffer.byteLength(text('/a'));
    // Room for two bodies of this size, not for two bodies and their gzip copies.
    const { get, rendered } = await serve((url) => ({ body: text(url) }), { maxBytes: 2 * (size + ENTRY_OVERHEAD_BYTES) + 10 });
    expect((await get('/a', { 'Accept-Encoding': 'gzip' })).headers['content-encoding']).toBe('gzip');
    await get('/b');
    await get('/a');
    expect(rendered).toEqual(['/a', '/b', '/a']);
  });

  it('counts the brotli copy of an entry against its bytes', async () => {
    const text = (url: string) => `${url} `.repeat(500);
    const body = Buffer.from(text('/a'));
    const brotli = brotliCompressSync(body, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
    });
    // Room for two bodies with their gzip copies and one brotli copy, not two.
    const perEntry = body.length + gzipSync(body).length + ENTRY_OVERHEAD_BYTES;
    const { get, rendered } = await serve((url) => ({ body: text(url) }), { maxBytes: 2 * perEntry + brotli.length + 1 });
    expect((await get('/a', { 'Accept-Encoding': 'br' })).headers['content-encoding']).toBe('br');
    await get('/b');
    await get('/a');
    expect(rendered).toEqual(['/a', '/b', '/a']);
  });

  it('sends the brotli copy to a client that prefers it, gzip to one that refuses brotli, and the bytes to the rest', async () => {
    const body = 'compressible text '.repeat(200);
    const { get, rendered } = await serve(() => ({ body }));
    const [br, gzip, plain] = [
      await get('/page', { 'Accept-Encoding': 'gzip, br' }),
      await get('/page', { 'Accept-Encoding': 'br;q=0, gzip' }),
      await get('/page'),
    ];
    expect(rendered).toEqual(['/page']);
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(body);
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(body);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(body);
    for (const response of [br, gzip, plain]) expect(response.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers.etag).toMatch(/-br"$/);
    expect(new Set([br.headers.etag, gzip.headers.etag, plain.headers.etag]).size).toBe(3);
  });

  it('answers 304 only to the ETag of the copy it would send, and another copy’s tag with that copy whole', async () => {
    const { get } = await serve(() => ({ body: 'compressible text '.repeat(200) }));
    const br = await get('/page', { 'Accept-Encoding': 'br' });
    const plainAgain = await get('/page', { 'If-None-Match': String(br.headers.etag) });
    expect(plainAgain.status).toBe(200);
    expect(plainAgain.headers.etag).not.toBe(br.headers.etag);
    expect(plainAgain.body.toString()).toBe('compressible text '.repeat(200));
    const gzipAgain = await get('/page', { 'Accept-Encoding': 'gzip', 'If-None-Match': String(br.headers.etag) });
    expect(gzipAgain.status).toBe(200);
    expect(gzipAgain.headers['content-encoding']).toBe('gzip');
    const brAgain = await get('/page', { 'Accept-Encoding': 'br', 'If-None-Match': String(br.headers.etag) });
    expect(brAgain.status).toBe(304);
    expect(brAgain.headers.etag).toBe(br.headers.etag);
    expect(brAgain.headers['content-encoding']).toBeUndefined();
  });

  it('compresses a kept page for the first request that accepts gzip', async () => {
    const { get } = await serve(() => ({ body: 'compressible text '.repeat(200) }));
    const first = await get('/page', { 'Accept-Encoding': 'gzip' });
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(first.headers.etag).toMatch(/-gz"$/);
    expect(first.headers.vary).toMatch(/Accept-Encoding/i);
  });

  it('answers a URL with a query by rendering it each time, uncompressed', async () => {
    const { get, rendered } = await serve(() => ({ body: 'compressible text '.repeat(200) }));
    const responses = [await get('/llms-full.txt?1', { 'Accept-Encoding': 'gzip' }), await get('/llms-full.txt?1', { 'Accept-Encoding': 'gzip' })];
    expect(rendered).toEqual(['/llms-full.txt?1', '/llms-full.txt?1']);
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.body.toString()).toBe('compressible text '.repeat(200));
    }
  });

  it('answers any query of a path Next serves from its build output from that path entry, and renders the others each time', async () => {
    const page = (url: string): Page =>
      url.startsWith('/llms-full.txt') ? { body: 'built text '.repeat(200), headers: { 'x-nextjs-cache': 'HIT' } } : { body: `confirm ${url}` };
    const { get, rendered } = await serve(page);
    const built = [];
    for (let i = 0; i < 20; i += 1) built.push(await get(`/llms-full.txt?${i}`, { 'Accept-Encoding': 'gzip' }));
    built.push(await get('/llms-full.txt'));
    expect(rendered).toEqual(['/llms-full.txt?0']);
    expect(new Set(built.map(({ headers }) => headers.etag)).size).toBe(2);
    expect(built[1]?.headers['content-encoding']).toBe('gzip');
    expect(built.at(-1)?.body.toString()).toBe('built text '.repeat(200));
    expect(built.every(({ headers }) => headers['x-nextjs-cache'] === undefined)).toBe(true);
    const confirms = [await get('/subscribe/confirm?token=a'), await get('/subscribe/confirm?token=b')];
    expect(confirms.map(({ body }) => body.toString())).toEqual(['confirm /subscribe/confirm?token=a', 'confirm /subscribe/confirm?token=b']);
    expect(rendered).toEqual(['/llms-full.txt?0', '/subscribe/confirm?token=a', '/subscribe/confirm?token=b']);
  });

  it('renders each concurrent request for a response that may not be shared', async () => {
    const { get, rendered } = await serve((url) => ({ body: `private ${url}`, cacheControl: 'private, no-store' }), { hold: 3 });
    const responses = await Promise.all([get('/account'), get('/account'), get('/account')]);
    expect(responses.map(({ body }) => body.toString())).toEqual(Array(3).fill('private /account'));
    expect(rendered).toEqual(['/account', '/account', '/account']);
  });

  it('still answers a kept page after the cache has been filled many times over', async () => {
    const page = (url: string): Page => ({ body: `page ${url}`.padEnd(1000, '.'), type: 'application/octet-stream' });
    const { get, rendered } = await serve(page, { maxBytes: 4 * (1000 + ENTRY_OVERHEAD_BYTES) });
    for (let i = 0; i < 200; i += 1) await get(`/filler/${i}`);
    expect(rendered).toHaveLength(200);
    const first = await get('/blog/etags');
    const again = await get('/blog/etags');
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body.toString()).toBe(page('/blog/etags').body);
    expect(rendered).toHaveLength(201);
  });
});

describe('made-up values under a dynamic segment', () => {
  /** /tags/{x} is a page 404 for every x but `real`; /tags/{x}.md a markdown 404 naming its path. */
  const madeUp: ReadCacheOptions['madeUp'] = (path) => {
    const match = /^\/tags\/([^/.]+)(\.md)?$/.exec(path);
    if (!match || match[1] === 'real') return undefined;
    return { key: match[2] ? 'markdown' : 'page' };
  };
  const page = (url: string): Page =>
    url.endsWith('.md')
      ? { status: 404, type: 'text/markdown; charset=utf-8', body: '# Not found\n\nNothing is published at this address.\n' }
      : { status: 404, type: 'text/html; charset=utf-8', cacheControl: 'private, no-cache, no-store', body: '<h1>Not found</h1>' };

  it('renders the first of a kind and answers every later value from that one answer, headers and all', async () => {
    const { get, rendered } = await serve(page, { madeUp });
    const answers = [];
    for (let value = 0; value < 50; value += 1) answers.push(await get(`/tags/made-up-${value}`));
    expect(rendered).toEqual(['/tags/made-up-0']);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([404]));
    expect(new Set(answers.map((answer) => answer.body.toString()))).toEqual(new Set(['<h1>Not found</h1>']));
    expect(new Set(answers.map((answer) => answer.headers.etag)).size).toBe(1);
    expect(answers.at(-1)?.headers['cache-control']).toBe('private, no-cache, no-store');
  });

  it('gives every made-up markdown URL the one markdown 404 the first had, bytes and ETag alike, apart from the HTML one', async () => {
    const { get, rendered } = await serve(page, { madeUp });
    const first = await get('/tags/one.md');
    const second = await get('/tags/two.md');
    const html = await get('/tags/three');
    expect(rendered).toEqual(['/tags/one.md', '/tags/three']);
    expect(second.status).toBe(404);
    expect(second.body).toEqual(first.body);
    expect(second.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('answers from the answer of before for STALE_FOR_MS after the reads went stale, and renders one anew after', async () => {
    let clock = 1_000;
    let version = 1;
    // While a post's going live is under way its URL is still judged made up; rendering it then would make the post.
    const { get, cache, rendered } = await serve(
      (url) => (url === '/tags/new' ? { body: 'the post' } : { ...page(url), body: `<h1>Not found</h1> v${version}` }),
      {
        madeUp,
        now: () => clock,
      },
    );
    await get('/tags/old');
    version = 2;
    cache.stale();
    clock += STALE_FOR_MS - 1;
    const during = await get('/tags/new');
    expect(during.status).toBe(404);
    expect(during.body.toString()).toBe('<h1>Not found</h1> v1');
    clock += 1;
    expect((await get('/tags/other')).body.toString()).toBe('<h1>Not found</h1> v2');
    expect(rendered).toEqual(['/tags/old', '/tags/other']);
  });

  it('renders a value that is not made up as before', async () => {
    const { get, rendered } = await serve((url) => (url === '/tags/real' ? { body: 'real' } : page(url)), { madeUp });
    expect((await get('/tags/real')).body.toString()).toBe('real');
    await get('/tags/a');
    await get('/tags/b');
    expect(rendered).toEqual(['/tags/real', '/tags/a']);
  });
});

describe('the read cache once a post went live (stale)', () => {
  const READ = 'public, max-age=30, s-maxage=30, stale-while-revalidate=30';

  /** GETs `path` until its body is `body` (the render in the background done), at most two seconds. */
  async function until<T extends { body: Buffer }>(get: (path: string) => Promise<T>, path: string, body: string): Promise<T> {
    const deadline = Date.now() + 2_000;
    for (;;) {
      const response = await get(path);
      if (response.body.toString() === body || Date.now() > deadline) return response;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('answers a kept read at once with its copy of before, its Cache-Control unchanged, and renders it anew once for the reads after', async () => {
    let version = 1;
    let clock = 1_000;
    const { get, cache, rendered } = await serve((url) => ({ body: `${url} v${version}`, cacheControl: READ }), { now: () => clock });
    await get('/blog');
    version = 2;
    cache.stale();
    clock += 4_200;
    const first = await get('/blog');
    expect(first.body.toString()).toBe('/blog v1');
    expect(first.headers['cache-control']).toBe(READ);
    expect((await until(get, '/blog', '/blog v2')).headers['cache-control']).toBe(READ);
    expect(rendered).toEqual(['/blog', '/blog']);
    expect((await get('/blog')).body.toString()).toBe('/blog v2');
  });

  it('renders the stale reads anew one at a time, whatever the readers ask at once', async () => {
    let version = 1;
    const paths = ['/', '/blog', '/feed.json', '/sitemap.xml', '/llms.txt', '/tags/http'];
    const { get, cache, mostInFlight } = await serve((url) => ({ body: `${url} v${version}`, cacheControl: READ }), { delayMs: 20 });
    for (const path of paths) await get(path);
    version = 2;
    cache.stale();
    const answers = await Promise.all(paths.map((path) => get(path)));
    expect(answers.map(({ body }) => body.toString())).toEqual(paths.map((path) => `${path} v1`));
    for (const path of paths) await until(get, path, `${path} v2`);
    expect(mostInFlight()).toBe(1);
  });

  it('renders a read stale for STALE_FOR_MS or longer before answering it', async () => {
    let version = 1;
    let clock = 1_000;
    const { get, cache } = await serve((url) => ({ body: `${url} v${version}`, cacheControl: READ }), { now: () => clock });
    await get('/blog');
    version = 2;
    cache.stale();
    clock += STALE_FOR_MS;
    const response = await get('/blog');
    expect(response.body.toString()).toBe('/blog v2');
    expect(response.headers['cache-control']).toBe(READ);
  });

  it('does not keep a render that was under way when the reads went stale', async () => {
    let version = 1;
    const { get, cache } = await serve((url) => ({ body: `${url} v${version}`, cacheControl: READ }), { delayMs: 50 });
    const underWay = get('/blog');
    await new Promise((resolve) => setTimeout(resolve, 10));
    cache.stale();
    version = 2;
    // Its own reader gets it; the next read does not.
    expect((await underWay).body.toString()).toBe('/blog v1');
    expect((await get('/blog')).body.toString()).toBe('/blog v2');
  });

  it('makes a path anew on request in place of its copy, readers getting the copy until then, and says its status', async () => {
    let version = 1;
    const { get, cache } = await serve((url) => ({ body: `${url} v${version}`, cacheControl: READ }), { delayMs: 30 });
    await get('/blog');
    version = 2;
    cache.stale();
    const render = (req: IncomingMessage, res: ServerResponse) => {
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': READ });
        res.end(`${req.url} v${version}`);
      }, 30);
    };
    const made = cache.refresh('/blog', render);
    expect((await get('/blog')).body.toString()).toBe('/blog v1');
    expect(await made).toBe(200);
    expect((await get('/blog')).body.toString()).toBe('/blog v2');
  });

  it("fills a rendered HTML page before keeping it (its ETag is the filled page's), and shows a change once the page is made anew", async () => {
    let likes = 1;
    const html = (url: string): Page => ({ type: 'text/html; charset=utf-8', body: `<main>${url}<section></section></main>` });
    const fill = (path: string, body: Buffer) => Buffer.from(body.toString().replace('<section></section>', `<section>${path}: ${likes}</section>`));
    const { get, cache } = await serve((url) => (url === '/plain' ? echo(url) : html(url)), { fill });
    const first = await get('/blog/post');
    expect(first.body.toString()).toBe('<main>/blog/post<section>/blog/post: 1</section></main>');
    expect((await get('/plain')).body.toString()).toBe('page /plain');

    likes = 2;
    // Kept as filled: the change shows once the page is made anew, with a new ETag.
    expect((await get('/blog/post')).body.toString()).toContain(': 1</section>');
    expect(
      await cache.refresh('/blog/post', (req, res) => res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': READ }).end(html(req.url!).body)),
    ).toBe(200);
    const after = await get('/blog/post');
    expect(after.body.toString()).toContain('/blog/post: 2</section>');
    expect(after.headers.etag).not.toBe(first.headers.etag);
  });
});
