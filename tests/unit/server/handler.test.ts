import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_IP_HEADER } from '@/lib/http/client-ip';
import { ContentError } from '@/lib/content/load';
import { createRequestHandler, type HandlerOptions } from '@/lib/server/handler';

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

const shareable = (body: string, type = 'text/plain; charset=utf-8') => (_req: IncomingMessage, res: ServerResponse) => {
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
