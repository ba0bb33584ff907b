import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_IP_HEADER } from '@/lib/http/client-ip';
import { VARIANT_HEADER } from '@/lib/http/negotiate';
import { ContentError } from '@/lib/content/load';
import { createRequestHandler, type HandlerOptions } from '@/lib/server/request-handler';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** lectern's handler in front of `render`, which counts what reaches it. */
async function serve(render: (req: IncomingMessage, res: ServerResponse) => void, options: HandlerOptions = {}) {
  const seen: { method: string; url: string; clientIp: string | undefined }[] = [];
  const handler = createRequestHandler(
    (req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', clientIp: req.headers[CLIENT_IP_HEADER] as string | undefined });
      render(req, res);
    },
    { siteUrl: 'http://localhost:3000', trustProxy: 0, csp: true },
    options,
  );
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const shareable =
  (body: string, type = 'text/plain; charset=utf-8') =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=60' });
    res.end(body);
  };

describe("lectern's request handler", () => {
  it('renders a shareable read once and answers the same bytes from memory after that', async () => {
    const { base, seen } = await serve(shareable('kept'));
    const bodies = [];
    for (let i = 0; i < 3; i += 1) bodies.push(await (await fetch(`${base}/page`)).text());
    const head = await fetch(`${base}/page`, { method: 'HEAD' });
    expect(bodies).toEqual(['kept', 'kept', 'kept']);
    expect(head.headers.get('content-length')).toBe('4');
    expect(seen.map(({ url }) => url)).toEqual(['/page']);
  });

  it('keeps static build files, but never a URL with a query or a client-router request', async () => {
    const { base, seen } = await serve(shareable('chunk', 'application/javascript'));
    for (const [url, headers] of [
      ['/_next/static/chunks/a.js', {}],
      ['/_next/static/chunks/a.js', {}],
      ['/page?utm=1', {}],
      ['/page?utm=1', {}],
      ['/page', { RSC: '1' }],
      ['/page', { RSC: '1' }],
    ] as const) {
      expect((await fetch(`${base}${url}`, { headers })).status).toBe(200);
    }
    expect(seen.map(({ url }) => url)).toEqual(['/_next/static/chunks/a.js', '/page?utm=1', '/page?utm=1', '/page', '/page']);
  });

  it('renders every read afresh in development', async () => {
    const { base, seen } = await serve(shareable('fresh'), { dev: true });
    await fetch(`${base}/page`);
    await fetch(`${base}/page`);
    expect(seen).toHaveLength(2);
  });

  it('hands other methods to the renderer with the socket address as the client IP, whatever the client claimed', async () => {
    const { base, seen } = await serve((_req, res) => {
      res.writeHead(202, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
    const response = await fetch(`${base}/api/subscribe`, { method: 'POST', headers: { [CLIENT_IP_HEADER]: '203.0.113.9' }, body: '{}' });
    expect(response.status).toBe(202);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(seen).toEqual([{ method: 'POST', url: '/api/subscribe', clientIp: '127.0.0.1' }]);
  });

  it('refuses a body sent to a URL that reads none with 413, before the renderer and without waiting for the rest', async () => {
    const { base, seen } = await serve(shareable('page'));
    const statuses = [];
    for (const headers of [{ 'Content-Length': String(5 * 1024 * 1024) }, { 'Transfer-Encoding': 'chunked' }]) {
      statuses.push(
        await new Promise<number>((resolve, reject) => {
          const req = request(`${base}/blog/a-post`, { method: 'POST', headers: { 'Content-Type': 'text/plain', ...headers } }, (res) => {
            resolve(res.statusCode ?? 0);
            req.destroy();
          });
          req.on('error', reject);
          // The upload never finishes: only an answer that does not wait for it arrives.
          req.write(Buffer.alloc(64 * 1024, 'a'));
        }),
      );
    }
    expect(statuses).toEqual([413, 413]);
    expect(seen).toEqual([]);
    expect((await fetch(`${base}/blog/a-post`)).status).toBe(200);
  });

  it('answers If-Match that fails with 412 from memory, and never hands a precondition to the renderer', async () => {
    const seen: (string | undefined)[] = [];
    const { base } = await serve((req, res) => {
      seen.push(req.headers['if-match']);
      shareable('kept')(req, res);
    });
    expect((await fetch(`${base}/file.svg`, { headers: { 'If-Match': '"other"' } })).status).toBe(412);
    const etag = (await fetch(`${base}/file.svg`)).headers.get('etag') ?? '';
    expect((await fetch(`${base}/file.svg`, { headers: { 'If-Match': etag } })).status).toBe(200);
    expect(seen).toEqual([undefined]);
  });

  it('hands a post to the renderer without the headers of a server action call (the site has none)', async () => {
    const seen: Record<string, unknown>[] = [];
    const { base } = await serve((req, res) => {
      seen.push({ action: req.headers['next-action'], rsc: req.headers.rsc });
      res.writeHead(404);
      res.end();
    });
    await fetch(`${base}/api/support`, {
      method: 'POST',
      headers: { 'Next-Action': 'x', RSC: '1', 'Content-Type': 'multipart/form-data; boundary=x' },
      body: '',
    });
    expect(seen).toEqual([{ action: undefined, rsc: undefined }]);
  });

  it('hands Next the variant it decided for each request under its own header (proxy.ts takes it), never what a client sent there', async () => {
    const seen: Record<string, unknown>[] = [];
    const { base } = await serve((req, res) => {
      seen.push({ url: req.url, variant: req.headers[VARIANT_HEADER] });
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end('page');
    });
    const forged = (variant: string, accept: string) => ({ [VARIANT_HEADER]: variant, Accept: accept });
    await fetch(`${base}/pricing`, { headers: forged('html', 'text/markdown') });
    await fetch(`${base}/blog/a-post`, { headers: forged('markdown', 'text/html, text/markdown;q=0.9') });
    // A page Next's client router asks for passes the read cache: decided all the same.
    await fetch(`${base}/blog/a-post`, { headers: { ...forged('html', 'text/markdown'), RSC: '1' } });
    // A path with one answer: nothing recorded, and nothing of the client's left.
    await fetch(`${base}/api/blog`, { headers: forged('markdown', 'text/markdown') });
    await fetch(`${base}/api/subscribe`, { method: 'POST', headers: forged('markdown', 'text/markdown'), body: '{}' });
    expect(seen).toEqual([
      { url: '/pricing', variant: 'markdown' },
      { url: '/blog/a-post', variant: 'html' },
      { url: '/blog/a-post', variant: 'markdown' },
      { url: '/api/blog', variant: undefined },
      { url: '/api/subscribe', variant: undefined },
    ]);
  });

  it('answers a path that does not decode with a 400 of its own, with the security headers, without reaching the renderer', async () => {
    const { base, seen } = await serve(shareable('never'));
    const page = await rawGet(base, '/tags/%ff', {});
    expect(page.status).toBe(400);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['content-security-policy']).toMatch(/style-src 'self' 'sha256-/);
    const api = await rawGet(base, '/api/blog/%c0%af/markdown', { method: 'HEAD' });
    expect(api.status).toBe(400);
    expect(api.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(Number(api.headers['content-length'])).toBeGreaterThan(0);
    expect(api.body).toBe('');
    const trace = await rawGet(base, '/blog/alpha-post', { method: 'TRACE' });
    expect(trace.status).toBe(405);
    expect(trace.headers.allow).toBe('GET, HEAD');
    const asterisk = await rawGet(base, '*', { method: 'OPTIONS' });
    expect(asterisk.status).toBe(400);
    expect(seen).toEqual([]);
  });

  it("answers every page with the content's problems while there are some, and reaches Next again once they are fixed", async () => {
    let problem: ContentError | undefined = new ContentError([
      { file: 'content/posts/a.md', key: 'drfat', message: 'is not a known key' },
      { file: 'content/posts/<b>.md', key: '', message: 'file name "<b>" is not a valid slug' },
    ]);
    const { base, seen } = await serve(shareable('page'), { dev: true, contentError: () => problem });
    const page = await fetch(`${base}/blog/a`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(500);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toContain('<p>Content has 2 problems:</p>');
    expect(html).toContain('<li>content/posts/a.md › drfat: is not a known key</li>');
    expect(html).toContain('<li>content/posts/&lt;b&gt;.md: file name &quot;&lt;b&gt;&quot; is not a valid slug</li>');
    const text = await fetch(`${base}/api/blog`);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toBe(`${problem.message}\n`);
    // Next's own files still load while the content is broken.
    expect((await fetch(`${base}/_next/static/chunks/a.js`)).status).toBe(200);
    expect(seen.map(({ url }) => url)).toEqual(['/_next/static/chunks/a.js']);

    problem = undefined;
    expect(await (await fetch(`${base}/blog/a`)).text()).toBe('page');
  });
});

describe('reads lectern answers itself (options.own: the search)', () => {
  const own: HandlerOptions['own'] = (path, query) => {
    if (path !== '/api/search') return undefined;
    if (query === '?q=broken') return Promise.reject(new Error('no answer'));
    return Promise.resolve(
      new Response(JSON.stringify({ query }), { headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'public, max-age=300' } }),
    );
  };

  it('answers them without rendering, each spelling of the path alike, with an ETag, a 304 to it and no body to HEAD', async () => {
    const { base, seen } = await serve(shareable('rendered'), { own });
    const first = await fetch(`${base}/api/search?q=a`);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ query: '?q=a' });
    expect(first.headers.get('cache-control')).toBe('public, max-age=300');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(await (await fetch(`${base}/api/%73earch?q=a`)).json()).toEqual({ query: '?q=a' });
    expect((await fetch(`${base}/api/search?q=a`, { headers: { 'If-None-Match': etag! } })).status).toBe(304);
    const head = await rawGet(base, '/api/search?q=a', { method: 'HEAD' });
    expect(head.headers.etag).toBe(etag);
    expect(head.body).toBe('');
    expect(seen).toEqual([]);
  });

  it('renders one it cannot answer, and every other path', async () => {
    const { base, seen } = await serve(shareable('rendered'), { own });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(await (await fetch(`${base}/api/search?q=broken`)).text()).toBe('rendered');
    expect(logged).toHaveBeenCalledOnce();
    logged.mockRestore();
    expect(await (await fetch(`${base}/api/blog`)).text()).toBe('rendered');
    expect(seen.map(({ url }) => url)).toEqual(['/api/search?q=broken', '/api/blog']);
  });
});

/** A request sent as written (fetch would normalise the path and refuses TRACE). */
function rawGet(base: string, path: string, options: { method?: string }): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method: options.method ?? 'GET', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the fediverse (options.fediverse: lib/fediverse)', () => {
  const fediverse: HandlerOptions['fediverse'] = (req, pathname) => {
    if (pathname === '/@blog' && !(req.headers.accept ?? '').includes('activity+json')) return 'home';
    if (pathname.startsWith('/@')) {
      return new Promise<Response>((resolve) => {
        let size = 0;
        req.on('data', (chunk: Buffer) => (size += chunk.length));
        req.on('end', () =>
          resolve(
            new Response(JSON.stringify({ method: req.method, size }), {
              status: req.method === 'POST' ? 202 : 200,
              headers: { 'Content-Type': 'application/activity+json' },
            }),
          ),
        );
      });
    }
    return undefined;
  };

  it('hands its URLs to it, an inbox post with its body, and sends its answers with the security headers, never reaching the renderer', async () => {
    const { base, seen } = await serve(shareable('page'), { fediverse });
    const actor = await fetch(`${base}/@blog`, { headers: { Accept: 'application/activity+json' } });
    expect(actor.status).toBe(200);
    expect(await actor.json()).toEqual({ method: 'GET', size: 0 });
    expect(actor.headers.get('x-content-type-options')).toBe('nosniff');
    const posted = await fetch(`${base}/@blog/inbox`, { method: 'POST', headers: { 'Content-Type': 'application/activity+json' }, body: '{"type":"Follow"}' });
    expect(posted.status).toBe(202);
    expect(await posted.json()).toEqual({ method: 'POST', size: 17 });
    expect(seen).toEqual([]);
  });

  it("serves the home page on the actor's URL to a browser, and leaves every other URL and a path that does not decode to the rest", async () => {
    const { base, seen } = await serve(shareable('home page'), { fediverse });
    const page = await fetch(`${base}/@blog?from=profile`, { headers: { Accept: 'text/html' } });
    expect(await page.text()).toBe('home page');
    expect((await fetch(`${base}/blog/a-post`)).status).toBe(200);
    expect((await fetch(`${base}/@blog%zz`)).status).toBe(400);
    expect(seen.map(({ url }) => url)).toEqual(['/?from=profile', '/blog/a-post']);
  });
});

describe('bodies in flight', () => {
  /** A POST of a body of `length` bytes whose first byte is sent and the rest held back; resolves with its answer if it gets one before the rest. */
  function slowPost(base: string, pathname: string, length: number) {
    const target = new URL(pathname, base);
    const req = request({
      host: target.hostname,
      port: target.port,
      path: pathname,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': length },
    });
    const answer = new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
    });
    answer.catch(() => undefined);
    req.write('{');
    return { answer, req };
  }

  it('refuses the body past the bound at once with 503 and Retry-After, unread, and takes bodies again once the held ones are answered', async () => {
    const { bodiesInFlight } = await import('@/lib/http/body');
    const { FORM_BODY_LIMIT, STRIPE_EVENT_BODY_LIMIT } = await import('@/lib/routes/manifest');
    const bodies = bodiesInFlight(3 * STRIPE_EVENT_BODY_LIMIT);
    // Next reads each body to its end, then answers.
    const { base, seen } = await serve(
      (req, res) => {
        req.resume();
        req.on('end', () => res.end('taken'));
      },
      { bodies },
    );
    const held = [0, 1, 2].map(() => slowPost(base, '/api/payments/webhook', STRIPE_EVENT_BODY_LIMIT));
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    // A fourth body, to this route or another, is refused from its head.
    for (const [pathname, length] of [
      ['/api/payments/webhook', STRIPE_EVENT_BODY_LIMIT],
      ['/api/subscribe', FORM_BODY_LIMIT],
    ] as const) {
      const refused = await slowPost(base, pathname, length).answer;
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(JSON.parse(refused.body).title).toBe('Too busy; try again shortly');
    }
    expect(seen).toHaveLength(3);
    // A read takes no room.
    expect((await fetch(`${base}/page`)).status).toBe(200);
    // The held bodies end and are answered: their room is given back.
    for (const { req } of held) req.end('x'.repeat(STRIPE_EVENT_BODY_LIMIT - 1));
    expect((await Promise.all(held.map(({ answer }) => answer))).map(({ status }) => status)).toEqual([200, 200, 200]);
    await vi.waitFor(() => expect(bodies.held).toBe(0));
    const again = await fetch(`${base}/api/payments/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(again.status).toBe(200);
  });
});
