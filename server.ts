import type { IncomingMessage, ServerResponse } from 'node:http';
import nextEnv from '@next/env';
import next from 'next';
import { settingsOrExit } from './lib/settings';
import { SERVER_RUNTIME, shared } from './lib/process-shared';
import type { Part } from './lib/runtime';
import { createRequestHandler } from './lib/server/request-handler';
import { createKeyDirectories } from './lib/http/key-directory';
import { createAgentVerifier } from './lib/http/web-bot-auth';
import { gracefulShutdown } from './lib/server/shutdown';
import { postsToPrewarm, prewarm } from './lib/server/prewarm';
import { createSearchThread, searchReads, ThreadBusyError } from './lib/server/search-thread';
import { runSearchesInThread } from './lib/search/site';
import { mcpPosts } from './lib/server/mcp-posts';
import { madeUpReads } from './lib/server/made-up';
import { clock } from './lib/runtime/site';
import { downloadReads } from './lib/server/downloads';

/**
 * lectern's server: Next's request handler behind lib/server/request-handler.ts, which
 * answers reads from memory, records the client IP for the write routes, and
 * puts the security headers (lib/http/security-headers.ts) on every response.
 */
const dev = process.argv.includes('--dev');
// Output that can no longer be written (the process reading the server's log went away: EPIPE) is dropped. Left
// unhandled, each failed write was reported as an error on the same closed output, and the server spun on it.
for (const output of [process.stdout, process.stderr]) output.on('error', () => undefined);
// The .env files Next.js reads (.env.production.local, .env.local, .env.production, .env; in development
// the .env.development ones), loaded before the settings are read, which Next itself loads later.
nextEnv.loadEnvConfig(process.cwd(), dev);
// Every setting is checked now: a bad value stops the start (status 1) with every bad value named.
const settings = settingsOrExit();
const { port, hostname, shutdownGraceMs: graceMs } = settings.server;

// Next builds its own idea of the request URL from this name; one that differs from the
// name it gives proxy.ts makes every rewrite a proxied request to itself (over https when
// a client says X-Forwarded-Proto: https, which then fails). The socket is ours to bind.
const app = next({ dev, hostname: 'localhost', port });
const handle = app.getRequestHandler();
// This server owns the process's runtime (below): instrumentation.ts, which Next runs now, starts none of its own.
// Development keeps Next's (the store and the mail worker, no newsletter).
if (!dev) shared(SERVER_RUNTIME, () => true);
// Searches (/api/search, the search page, MCP) run in the search thread below, which holds the process's
// one index: said before Next starts, so instrumentation.ts builds none in this thread.
const inThread = dev ? undefined : runSearchesInThread();
await app.prepare();
// The runtime (lib/runtime), loaded once Next is prepared: what it builds uses Next's request-scoped storage (`after`).
const runtimeModule = await import('./lib/runtime');
// The services the routes use too (lib/process-shared.ts makes them one per process). Made here,
// started below with everything else the server runs, in one place.
// Over SMTP, the newsletter makes and sends each reader's copy in a mail thread of its own (lib/newsletter/mail-thread.ts).
const services = dev ? undefined : runtimeModule.services({ mailThread: (await import('./lib/newsletter/mail-thread')).mailThread });

// /api/search and the MCP calls run in a thread of its own that holds the index (lib/server/search-thread.ts),
// so reads answered from memory do not wait behind them. The server listens once that thread has built its index, so no
// reader's search waits for it. Development answers searches with the Next route, in this thread.
const searchThread = dev ? undefined : createSearchThread({ buildTime: settings.build.time });
if (inThread && searchThread)
  inThread.search = (query) =>
    searchThread.search(query).then(
      (answer) => answer.results,
      (error: unknown) => {
        if (error instanceof ThreadBusyError) return 'busy' as const;
        throw error;
      },
    );

// MCP calls: admitted here (the limit, priced by each call's work), answered in the search thread (lib/server/mcp-posts.ts).
const posts = searchThread && services && mcpPosts(searchThread, () => services.limiter, settings);

// Development: Next evaluates code and injects scripts of its own, so no Content-Security-Policy.
const security = { siteUrl: settings.site.url, trustProxy: settings.deployment.trustProxy, csp: !dev };
// Development: while the content folder does not load, every page shows the build's message instead.
const contentError = dev ? (await import('./lib/content')).contentError : undefined;
// Web Bot Auth: agents' signatures verified against their key directories (README, "Verified agents").
const loopback = settings.agents.loopbackDirectories;
const verifyAgent = createAgentVerifier(createKeyDirectories({ loopback }), { loopback });
/** The moment the reads have caught up with: the clock's, or the scheduler's once it is made (below). */
const reads = { at: clock };
// The site on the fediverse (README, "On the fediverse"): Fedify answers its URLs ahead of Next, and judges
// which posts exist at the moment the reads have caught up with, as every other output does.
const fediverseHandle = settings.fediverse.handle;
// Off with FEDIVERSE=0. Fedify itself (about 30 MiB of the idle server) is loaded once the site is known on the fediverse (lib/fediverse/site.ts).
const fediverse =
  services && fediverseHandle
    ? (await import('./lib/fediverse/site')).serverFediverse(
        settings,
        fediverseHandle,
        () => reads.at(),
        services,
        (path) => handler.refreshRead(path),
      )
    : undefined;
const handler = createRequestHandler(
  (req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('request failed', error);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Internal Server Error');
    });
  },
  security,
  {
    dev,
    contentError,
    stopping: () => shutdown.stopping,
    // A verified agent's searches are counted against its own budget (the limiter, as MCP's).
    own: searchThread && searchReads(searchThread, undefined, services && (() => services.limiter)),
    posts,
    // Judged at the moment the reads have caught up with: a post's URLs answer as before its time until its page is made (lib/publishing/on-server.ts, `readsAt`).
    madeUp: dev ? undefined : madeUpReads(() => reads.at()),
    downloads: services && downloadReads(() => services.store, settings),
    refuseTrainingCrawlers: settings.agents.refuseTrainingCrawlers,
    verifyAgent,
    fediverse: fediverse?.reads,
    // A post's page shows its likes, reposts and approved replies (lib/fediverse/reactions-page.ts).
    fill: fediverse?.reactions.fill,
  },
);
// Posts dated ahead go live at their time (README, "Scheduling a post"). The site is brought up to
// the clock before the first request is taken: a post whose time came while no instance ran is
// served from the first request on. When one goes live, the reactions of lib/publishing/posts-changed.ts
// run in this process, in their order, with this server's own: Next's outputs marked stale, the
// search thread's new index, the new post's pages and every list made anew (the read cache forgetting
// each old copy once the new one is made: readers wait for no render, then everything else it kept),
// IndexNow, and the newsletter looking for it at once (it also looks every NEWSLETTER_CHECK_MS). Two
// minutes before the first post it makes live, the scheduler has every list and feed made once (warmLists).
// Next's handler, for the server's own requests, made in this process (lib/server/next-requests.ts).
const render = (req: IncomingMessage, res: ServerResponse) => {
  handle(req, res).catch(() => res.destroy());
};
const publishing = dev ? undefined : await import('./lib/publishing/on-server');
const bookings = dev ? undefined : await import('./lib/bookings/reminders');
const scheduler =
  services &&
  publishing?.siteScheduler(
    render,
    {
      // The search thread starts its new index at once, before the lists are made anew.
      refreshSearch: () => searchThread?.refresh(),
      // Its index of the posts live at the next post's time is built ahead, and used from that time.
      prepareSearch: (at) => searchThread?.prepare(at),
      remake: (path) => handler.refreshRead(path),
      readsChanged: () => handler.staleReads(),
      // Each post is rendered in a thread of its own before its time (lib/publishing/render-ahead.ts).
      renderAhead: (until) => publishing.renderAheadInThread(until),
      claims: () => services.store.settings,
      indexNow: settings,
      newsletter: () => services.newsletter.check(),
      // A Create of each post that went live, queued for its followers on the fediverse.
      fediverse: fediverse && ((slugs) => fediverse.deliver(slugs)),
    },
    // Each booking's reminder, once, at its time (README, "Selling"): looked for at each look and every BOOKING_REMINDER_CHECK_MS.
    bookings
      ? [
          {
            name: 'booking reminders',
            everyMs: settings.bookings.reminderCheckMs,
            run: (now: number) => bookings.queueDueReminders(services.store, now, () => services.mailWorker.kick()),
          },
        ]
      : [],
  );
if (scheduler) reads.at = () => scheduler.readsAt();

// Everything this server runs beside answering requests, started here in this order before it
// listens and stopped in the reverse order once requests in flight have finished (lib/runtime):
// the services (store, mail worker, newsletter, readers of bounces), the search thread (the server
// listens once it has built its index, so no reader's search waits for it), the scheduler (which
// brings the site up to the clock before the first request is taken, and stops before the services:
// no post goes live on a server that is stopping), and a large site's older posts (past
// PRERENDER_POSTS), generated in the background.
let prewarming: Promise<void> | undefined;
let stopping = false;
const parts: Part[] = [
  ...(services ? runtimeModule.serviceParts(services, settings) : []),
  ...(searchThread ? [{ name: 'search thread', start: () => searchThread.start(), stop: () => searchThread.stop() }] : []),
  // Fedify's queue (deliveries out, activities in), started before the scheduler that queues posts into it.
  ...(fediverse ? [fediverse.part] : []),
  // What came back to the posts, read from the fediverse's store before the first page is rendered, then looked at every second.
  ...(fediverse ? [fediverse.reactions.part] : []),
  ...(scheduler
    ? [
        {
          name: 'scheduler',
          start: () => scheduler.start(),
          async stop() {
            scheduler.stop();
            await scheduler.idle();
          },
        },
      ]
    : []),
  ...(!dev && settings.server.prewarm
    ? [
        {
          name: 'prewarm',
          start() {
            prewarming = prewarm(render, postsToPrewarm(), console.log, () => stopping);
          },
          async stop() {
            stopping = true;
            await prewarming;
          },
        },
      ]
    : []),
];
const runtime = runtimeModule.createRuntime(parts);
await runtime.start();

// The server, made by its shutdown (lib/server/shutdown.ts).
const shutdown = gracefulShutdown(handler, {
  graceMs,
  quiesce: () => runtime.quiesce(),
  connections: settings.server.connections,
  stopServices: () => runtime.stop(),
});

shutdown.server.listen(port, hostname, () => {
  const shown = hostname === '0.0.0.0' ? 'localhost' : hostname;
  console.log(`lectern ${dev ? 'dev' : 'production'} server on http://${shown}:${port} (Node.js ${process.version})`);
});

// Stop cleanly (lib/server/shutdown.ts): no new connections, requests in flight finish, then the
// services stop; exit 0. A second signal does not wait, unless it comes within a second of the first:
// a terminal's Ctrl-C reaches every process of its group, `npm start` too, which passes it on, and
// that is one request to stop, not two.
let signalledAt: number | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    const now = performance.now();
    if (signalledAt !== undefined) {
      if (now - signalledAt >= 1000) process.exit(1);
      return;
    }
    signalledAt = now;
    void shutdown.begin().then(() => process.exit(0));
  });
}
