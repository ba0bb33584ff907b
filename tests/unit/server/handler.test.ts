import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_IP_HEADER } from '@/lib/http/client-ip';
import { createRequestHandler } from '@/lib/server/handler';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** lectern's handler in front of `render`, which counts what reaches it. */
async function serve(render: (req: IncomingMessage, res: ServerResponse) => void, options: { dev?: boolean } = {}) {
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
});
