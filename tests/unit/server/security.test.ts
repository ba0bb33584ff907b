import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestHandler } from '@/lib/server/request-handler';
import { type SecurityOptions } from '@/lib/server/security';

const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
const PAGE = '<!DOCTYPE html><html><head><style>p{margin:0}</style><script>boot()</script></head><body><p>hi</p></body></html>';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, options: Partial<SecurityOptions> = {}): Promise<string> {
  const security: SecurityOptions = { siteUrl: 'http://localhost:3000', trustProxy: 0, csp: true, ...options };
  server = createServer(createRequestHandler(handler, security));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe('security headers on every response', () => {
  it('hashes an HTML body written in pieces, without a Content-Security-Policy of its own', async () => {
    const base = await serve((_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.write(PAGE.slice(0, 40));
      res.write(Buffer.from(PAGE.slice(40, 90)));
      res.end(PAGE.slice(90));
    });
    const response = await fetch(`${base}/api/support`, { method: 'POST' });
    expect(await response.text()).toBe(PAGE);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain(`script-src 'self' ${sha('boot()')}`);
    expect(policy).toContain(`style-src 'self' ${sha('p{margin:0}')}`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(response.headers.get('permissions-policy')).toContain('camera=()');
    expect(response.headers.get('strict-transport-security')).toBeNull();
  });

  it('keeps status, reason and headers given to writeHead, and corrects Content-Length', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(400, 'Bad Input', { 'Content-Type': 'text/html', 'Content-Length': Buffer.byteLength(PAGE), 'X-Extra': 'kept' });
      res.end(PAGE);
    });
    const response = await fetch(`${base}/api/subscribe`, { method: 'POST' });
    expect(response.status).toBe(400);
    expect(response.statusText).toBe('Bad Input');
    expect(response.headers.get('x-extra')).toBe('kept');
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(PAGE)));
    expect(response.headers.get('content-security-policy')).toContain(sha('boot()'));
  });

  it('gives everything that is not HTML the locked-down policy, and leaves a policy already set alone', async () => {
    const base = await serve((req, res) => {
      if (req.url === '/own') res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
    expect((await fetch(`${base}/json`)).headers.get('content-security-policy')).toBe(
      "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    expect((await fetch(`${base}/own`)).headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
  });

  it('computes a cached page policy once, and sends it with every copy, 304s included', async () => {
    let renders = 0;
    const base = await serve((_req, res) => {
      renders += 1;
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'public, max-age=300' });
      res.end(PAGE);
    });
    const first = await fetch(`${base}/cached`);
    const second = await fetch(`${base}/cached`);
    const notModified = await fetch(`${base}/cached`, { headers: { 'If-None-Match': second.headers.get('etag') ?? '' } });
    expect(renders).toBe(1);
    expect(notModified.status).toBe(304);
    for (const response of [first, second, notModified]) {
      expect(response.headers.get('content-security-policy')).toContain(sha('boot()'));
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
    expect(await second.text()).toBe(PAGE);
  });

  it('sends Strict-Transport-Security when the site is https, or a trusted proxy says the request was', async () => {
    const handler = (_req: IncomingMessage, res: ServerResponse) => res.end('ok');
    let base = await serve(handler, { siteUrl: 'https://example.com' });
    expect((await fetch(`${base}/`)).headers.get('strict-transport-security')).toMatch(/^max-age=\d+; includeSubDomains$/);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    base = await serve(handler, { trustProxy: 1 });
    expect((await fetch(`${base}/`, { headers: { 'X-Forwarded-Proto': 'https' } })).headers.get('strict-transport-security')).not.toBeNull();
    expect((await fetch(`${base}/`)).headers.get('strict-transport-security')).toBeNull();
  });

  it('decides Strict-Transport-Security per request for a page kept in memory', async () => {
    let renders = 0;
    const base = await serve(
      (_req, res) => {
        renders += 1;
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=60' });
        res.end('{"kept":true}');
      },
      { trustProxy: 1 },
    );
    const plain = await fetch(`${base}/kept`);
    const viaHttps = await fetch(`${base}/kept`, { headers: { 'X-Forwarded-Proto': 'https' } });
    const plainAgain = await fetch(`${base}/kept`);
    expect(renders).toBe(1);
    expect(plain.headers.get('strict-transport-security')).toBeNull();
    expect(viaHttps.headers.get('strict-transport-security')).not.toBeNull();
    expect(plainAgain.headers.get('strict-transport-security')).toBeNull();
    for (const response of [plain, viaHttps, plainAgain]) {
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await response.text()).toBe('{"kept":true}');
    }
  });

  it('sends no Content-Security-Policy in development, and the other headers still', async () => {
    const base = await serve(
      (_req, res) => {
        res.setHeader('Content-Type', 'text/html');
        res.end(PAGE);
      },
      { csp: false },
    );
    const response = await fetch(`${base}/`);
    expect(response.headers.get('content-security-policy')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe(PAGE);
  });
});
