import { createServer } from 'node:http';
import nextEnv from '@next/env';
import next from 'next';
import { clock } from './lib/clock';
import { config } from './lib/config';
import { deployment } from './lib/deploy';
import { envOrExit } from './lib/env';
import { createRequestHandler } from './lib/server/handler';
import type { Scheduler } from './lib/publishing/scheduler';
import { postsToPrewarm, prewarm } from './lib/server/prewarm';

/**
 * lectern's server: Next's request handler behind lib/server/handler.ts, which
 * answers reads from memory, records the client IP for the write routes, and
 * puts the security headers (lib/http/security-headers.ts) on every response.
 */
const dev = process.argv.includes('--dev');
// The .env files Next.js reads (.env.production.local, .env.local, .env.production, .env; in development
// the .env.development ones), loaded before the settings are read, which Next itself loads later.
nextEnv.loadEnvConfig(process.cwd(), dev);
// Every setting is checked now: a bad value stops the start (status 1) with every bad value named.
const { PORT: port, HOSTNAME: hostname } = envOrExit();

// Next builds its own idea of the request URL from this name; one that differs from the
// name it gives proxy.ts makes every rewrite a proxied request to itself (over https when
// a client says X-Forwarded-Proto: https, which then fails). The socket is ours to bind.
const app = next({ dev, hostname: 'localhost', port });
const handle = app.getRequestHandler();
await app.prepare();
// The store opens and the mail worker starts now, whatever Next does with instrumentation.ts under a
// custom server: mail left in the outbox by a previous run goes out, and a store that cannot open
// stops the start. lib/process-shared.ts makes these the services the routes use.
if (!dev) {
  const { services } = await import('./lib/services');
  void services().store;
  void services().mailWorker;
}

// Development: Next evaluates code and injects scripts of its own, so no Content-Security-Policy.
const security = { siteUrl: config().siteUrl, trustProxy: deployment().trustProxy, csp: !dev };
// Development: while the content folder does not load, every page shows the build's message instead.
const contentError = dev ? (await import('./lib/content')).contentError : undefined;
const handler = createRequestHandler(
  (req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('request failed', error);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Internal Server Error');
    });
  },
  security,
  // What is served may be kept by a cache in front until the next post goes live, and no longer.
  { dev, contentError, clock, freshUntil: () => scheduler?.nextChange() },
);
const server = createServer(handler);

// Posts dated ahead go live at their time (README, "Scheduling a post"). The site is brought up to
// the clock before the first request is taken: a post whose time came while no instance ran is
// served from the first request on.
const scheduler: Scheduler | undefined = dev
  ? undefined
  : await (
      await import('./lib/publishing/on-server')
    ).startScheduler((req, res) => {
      handle(req, res).catch(() => res.destroy());
    }, handler.clearReads);

server.listen(port, hostname, () => {
  const shown = hostname === '0.0.0.0' ? 'localhost' : hostname;
  console.log(`lectern ${dev ? 'dev' : 'production'} server on http://${shown}:${port}`);
  // A large site's older posts (past PRERENDER_POSTS), generated in the background after start.
  if (!dev && config().prewarm) {
    void prewarm((req, res) => {
      handle(req, res).catch(() => res.destroy());
    }, postsToPrewarm());
  }
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    scheduler?.stop();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5000).unref();
  });
}
