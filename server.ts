import { createServer } from 'node:http';
import next from 'next';
import { recordClientIp } from './lib/http/client-ip';
import { config } from './lib/config';
import { createReadCache } from './lib/server/read-cache';
import { adjustResponseHead, isNegotiatedPath } from './lib/server/response-headers';
import { applySecurityHeaders, trustProxyFromEnv, withDocumentPolicy } from './lib/server/security';

/**
 * lectern's server: Next's request handler behind a small Node server that
 * records the socket address as the client IP (a header no client can set)
 * and keeps `Vary: Accept` on negotiated responses, and puts the security
 * headers (lib/http/security-headers.ts) on every response.
 */
const dev = process.argv.includes('--dev');
const port = Number(process.env.PORT || 3000);
const hostname = process.env.HOSTNAME || '0.0.0.0';

if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got "${process.env.PORT}"`);
  process.exit(1);
}

const app = next({ dev, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

// Development: Next evaluates code and injects scripts of its own, so no Content-Security-Policy.
const security = { siteUrl: config().siteUrl, trustProxy: trustProxyFromEnv(), csp: !dev };
const readCache = createReadCache(security.csp ? { finishHeaders: withDocumentPolicy } : {});

const server = createServer((req, res) => {
  recordClientIp(req.headers, req.socket.remoteAddress);
  const pathname = (req.url ?? '/').split('?')[0] ?? '/';
  adjustResponseHead(res, { varyAccept: isNegotiatedPath(pathname) });
  applySecurityHeaders(req, res, security);
  readCache.handle(req, res, () => {
    handle(req, res).catch((error: unknown) => {
      console.error('request failed', error);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Internal Server Error');
    });
  });
});

server.listen(port, hostname, () => {
  const shown = hostname === '0.0.0.0' ? 'localhost' : hostname;
  console.log(`lectern ${dev ? 'dev' : 'production'} server on http://${shown}:${port}`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
