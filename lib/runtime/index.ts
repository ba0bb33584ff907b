import { after } from 'next/server';
import { publishedPosts, site } from '../content';
import { platformFediverse, type PlatformFediverse } from '../fediverse/platform';
import { settings, type Settings } from '../settings';
import { createLimiter, type Limiter } from '../limits';
import { siteNewsletter, type Newsletter } from '../newsletter';
import type { MailThreadFactory } from '../newsletter/mail-thread';
import { startBounceReaders, type BounceReaders } from '../newsletter/bounces/readers';
import { shared } from '../process-shared';
import { createTransport } from '../services/mail/transport';
import { createMailWorker, type MailWorker } from '../services/mail/worker';
import { createPayments, type Payments } from '../services/payments';
import { connectRedis, redisEvaluator, type RedisConnection } from '../redis/client';
import { openStore, type Store } from '../services/store';
import { createRuntime, type Part, type Runtime } from './runtime';
import { clock } from './site';

export { createRuntime, type Part, type Runtime } from './runtime';

/** Sends the mail a request has just queued, now (see `createServices`). */
export type QueuedMail = { sendQueued: () => void };

/**
 * The services a running site uses, each made (not started) on first use from the settings
 * and from one another: one Redis connection (when configured) for the store
 * and the rate limits, the store, the limiter, Stripe and the mail worker.
 * The entry points (app/, server.ts, instrumentation-node.ts, the scripts) ask
 * for them and hand them to what in lib/ uses them: an action gets them in
 * its context (lib/write-routes/definition.ts).
 */
export type Services = {
  /** The one Redis connection (REDIS_URL or Upstash), when configured: the store, the limits and the fediverse's queue share it. */
  readonly redis: RedisConnection | undefined;
  readonly store: Store;
  readonly limiter: Limiter;
  readonly payments: Payments | undefined;
  readonly mailWorker: MailWorker;
  readonly mail: QueuedMail;
  /** Made here, started by the runtime (serviceParts). */
  readonly newsletter: Newsletter;
  /**
   * In platform mode, the site on the fediverse (lib/fediverse/platform.ts) on the Redis connection;
   * undefined elsewhere (lectern's server runs its own, server.ts) and with FEDIVERSE=0.
   */
  readonly fediverse: PlatformFediverse | undefined;
};

/** Runs a task once the response is sent, keeping a short-lived instance alive for it (Next's `after`). */
export type AfterResponse = (task: () => Promise<void>) => void;

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/**
 * The services of `settings`. `mail.sendQueued()` sends the mail a request has just queued: the
 * worker is kicked, and a host that ends a request's work with its response (a platform's
 * short-lived instance) is asked to wait until the sending is done (`afterResponse`, Next's
 * `after` unless given); on a long-lived server this changes nothing.
 */
export type ServiceOptions = {
  afterResponse?: AfterResponse;
  /** Over SMTP, the newsletter makes and sends each reader's copy in a mail thread made by this (lib/newsletter/mail-thread.ts). */
  mailThread?: MailThreadFactory;
};

export function createServices(settings: Settings, options: ServiceOptions = {}): Services {
  const afterResponse = options.afterResponse ?? after;
  const redis = once(() => connectRedis(settings.redis));
  const store = once(() => openStore(settings, { redis: redis() }));
  const limiter = once(() => createLimiter(settings.limits, redis()));
  const payments = once(() => createPayments(settings.payments));
  const mailWorker = once(() => createMailWorker({ ...settings.mail, store: store(), transport: createTransport(settings, () => site().name) }));
  const newsletter = once(() => siteNewsletter(settings, store(), console, { thread: options.mailThread }));
  const fediverse = once(() => {
    const connection = redis();
    const { handle, allowPrivateAddress, blockedDomains, sendTimeoutMs } = settings.fediverse;
    if (!settings.deployment.platform || !handle || !connection) return undefined;
    return platformFediverse({
      redis: redisEvaluator(connection),
      origin: settings.site.url,
      handle,
      build: String(settings.build.time),
      allowPrivateAddress,
      blockedDomains,
      sendTimeoutMs,
      limiter,
      deployment: settings.deployment,
      now: clock,
      posts: publishedPosts,
      profile: () => {
        const { name, summary, links } = site();
        return { name, summary, links };
      },
    });
  });
  const mail: QueuedMail = {
    sendQueued() {
      const worker = mailWorker();
      worker.kick();
      afterResponse(() => worker.drain());
    },
  };
  return {
    get redis() {
      return redis();
    },
    get store() {
      return store();
    },
    get limiter() {
      return limiter();
    },
    get payments() {
      return payments();
    },
    get mailWorker() {
      return mailWorker();
    },
    mail,
    get newsletter() {
      return newsletter();
    },
    get fediverse() {
      return fediverse();
    },
  };
}

/**
 * The process's services: one set however many copies of this module the
 * process holds (lib/process-shared.ts), so the routes kick the mail worker
 * the runtime started and every route counts against the same limits. The first to ask (the entry
 * point: lectern's server gives its mail thread) decides the `options`.
 */
export function services(options: Pick<ServiceOptions, 'mailThread'> = {}): Services {
  return shared('services', () => createServices(settings(), options));
}

/**
 * The parts the services run in the background, in the order they start (lib/runtime/runtime.ts
 * stops them in the reverse one): the store opens (a store that cannot open fails the start, not a
 * reader's request), the mail worker starts on it, sending what a previous run left, then the
 * newsletter and the readers of bounces (unless `newsletter: false`: a platform keeps no process
 * running between requests, and in development a post being written must not be mailed). Stopping,
 * the newsletter and the mail worker start no new message, finish the ones on the wire, give their
 * other claims back and close their connections; the store and its Redis connection close last (the
 * limiter shares it: nothing is decided after this).
 */
export function serviceParts(running: Services, settings: Settings, options: { newsletter?: boolean } = {}): Part[] {
  const mailing = options.newsletter !== false;
  let bounces: BounceReaders | undefined;
  return [
    { name: 'store', start: () => void running.store, stop: () => running.store.close() },
    {
      name: 'mail worker',
      start: () => running.mailWorker.start(),
      async stop() {
        running.mailWorker.stop();
        await running.mailWorker.drain();
      },
    },
    ...(mailing
      ? [
          {
            name: 'newsletter',
            start: () => running.newsletter.start(),
            // A shutdown begins: no new message, the ones on the wire finish.
            quiesce: () => running.newsletter.stop(),
            async stop() {
              running.newsletter.stop();
              await running.newsletter.drain();
            },
          },
          {
            // What comes back to the bounce address: the SMTP listener and the IMAP poller, when configured.
            name: 'bounce readers',
            start() {
              bounces = startBounceReaders(settings, running.store);
            },
            async stop() {
              bounces?.stop();
              await bounces?.drain();
            },
          },
        ]
      : []),
  ];
}

/**
 * The runtime of a host where only Next runs lectern (a platform, `next start`): the services'
 * parts, made once per process whichever copy of lib/ asks, and started by instrumentation-node.ts.
 */
export function nextRuntime(options: { newsletter?: boolean } = {}): Runtime {
  return shared('runtime', () => createRuntime(serviceParts(services(), settings(), options)));
}
