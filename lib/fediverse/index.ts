import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { createExponentialBackoffPolicy, type Federation, type RetryPolicy } from '@fedify/fedify';
import { cacheHeaders } from '../http/cache';
import { recordClientIp } from '../http/client-ip';
import { problem } from '../http/problem';
import { readBody } from '../http/body';
import type { Limiter } from '../limits/limiter';
import { describeError } from '../log';
import type { Part } from '../runtime/runtime';
import { NEGOTIATED_VARY } from '../server/response-headers';
import type { Settings } from '../settings';
import type { Post } from '../content';
import { postSync } from './deploy';
import { deliveryHooks } from './durable-queue';
import { createSiteFederation, type ActorProfile } from './federation';
import { inboxGuard } from './inbox-guard';
import { fediverseRoute, INBOX_BODY_LIMIT, sharesUrlWithPage } from './paths';
import type { FediverseStores } from './stores';

export { fediverseRoute } from './paths';

/**
 * What lectern's server asks of the fediverse for a request: a response of Fedify's, `home` (a
 * browser on the actor's URL gets the home page there), or undefined (not the fediverse's).
 */
export type FediverseReads = (req: IncomingMessage, pathname: string) => Promise<Response> | 'home' | undefined;

export type SiteFediverse = {
  /** Answers the fediverse's requests (./paths.ts says which) with Fedify. */
  reads: FediverseReads;
  /**
   * The same for a Fetch `Request` on the site's public URL (a host where only Next runs:
   * ./platform.ts), its body read up to the inbox's limit: a request ./paths.ts gives to Fedify.
   */
  respond: (request: Request) => Promise<Response>;
  /**
   * Posts went live (claimed once across instances: lib/publishing/went-live.ts): a `Create` of
   * each is queued for every follower, through shared inboxes where servers offer them. Resolves
   * once the activities are in the durable queue, not once they are delivered. At start the part
   * sends what a deploy changed (./deploy.ts: `Update`, `Delete`).
   */
  deliver: (slugs: readonly string[]) => Promise<void>;
  /**
   * What a deploy changed, sent (./deploy.ts: `Update`, `Delete`, a `Create` never queued); the first
   * time, the moment the site went on the fediverse is recorded. The part runs it at start; a host
   * without lectern's server (./platform.ts) once per build. Resolves with whether every post went through.
   */
  deployed: () => Promise<boolean>;
  /** The queue's listener (outgoing deliveries, incoming activities), started and stopped by the runtime. */
  part: Part;
  federation: Federation<void>;
};

export type SiteFediverseOptions = {
  stores: FediverseStores;
  /** The inbox's limits (per client address and per remote server) are counted on lectern's limiter; the client address is found as for the write routes. */
  limiter: () => Limiter;
  deployment: Settings['deployment'];
  /** Servers refused and never contacted, each with its subdomains (FEDIVERSE_BLOCKED_DOMAINS). */
  blockedDomains?: readonly string[];
  /** The site's public URL (SITE_URL). */
  origin: string;
  handle: string;
  allowPrivateAddress: boolean;
  now: () => number;
  posts: (at: number) => readonly Post[];
  profile: () => ActorProfile;
  log?: Pick<Console, 'warn' | 'log'>;
  /** How long a failed delivery is retried (DELIVERY_RETRY: with backoff, for two days). */
  retryPolicy?: RetryPolicy;
  /** At most how long a stop waits for the deliveries on the wire (STOP_WAIT_MS). */
  stopWaitMs?: number;
};

/** How long a server that does not take an activity is tried again before it is given up (README, "Delivery"). */
export const GIVE_UP_AFTER_MS = 48 * 3_600_000;

/**
 * Retries of a failed delivery: after about 30 s, then twice as long each time (with jitter), at most
 * 6 hours apart, until GIVE_UP_AFTER_MS after the first try: then the server is given up, and that
 * is logged once (./durable-queue.ts). A server answering 404 or 410 is given up at once (Fedify).
 */
export function deliveryRetryPolicy(giveUpAfterMs = GIVE_UP_AFTER_MS): RetryPolicy {
  const backoff = createExponentialBackoffPolicy({ initialDelay: { seconds: 30 }, maxDelay: { hours: 6 }, maxAttempts: Number.MAX_SAFE_INTEGER });
  return (context) => (context.elapsedTime.total('millisecond') >= giveUpAfterMs ? null : backoff(context));
}

/** How many times a start compares the posts with what followers have, and how long apart, while the store fails. */
const DEPLOY_TRIES = 5;
const DEPLOY_RETRY_MS = 10_000;

/** At most how long a stop waits for the deliveries on the wire to finish before the store closes (what is left is sent by the next start). */
export const STOP_WAIT_MS = 10_000;

/** The request's head as a Fetch `Request` on the site's public URL (the URL signatures and IDs are made on), without its body. */
function requestHead(req: IncomingMessage, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(req.url ?? '/', origin), { method: req.method ?? 'GET', headers });
}

/** A response with `headers` set over its own. */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}

/**
 * The caching of an ActivityStreams read: a document (actor, Article, collections, WebFinger,
 * NodeInfo) as every other read of the site (30 s fresh, 30 s more while revalidated: a post going
 * live is in the outbox within a minute everywhere); anything else as Fedify or lectern made it,
 * never stored when it says nothing. Each varies on `Accept`; the URLs a browser reads as a page (the
 * actor's, a post's) send the very `Vary` of that page, so a shared cache keeps the two apart (one
 * `Vary` per URL, lib/server/response-headers.ts) and never gives JSON to a browser or a page to a server.
 */
function readHeaders(response: Response, pathname: string): Record<string, string> {
  const vary = sharesUrlWithPage(pathname) ? NEGOTIATED_VARY.join(', ') : 'Accept';
  if (response.ok) return { ...cacheHeaders('read'), Vary: vary };
  return { ...(response.headers.has('cache-control') ? {} : cacheHeaders('live')), Vary: vary };
}

/** What a fediverse URL answers when Fedify has nothing there: the same 404 for a post not live yet as for one that never was. */
const notFound = () => problem('not-found', 'Nothing on the fediverse has this address.', { cache: 'live' });

/**
 * The site on the fediverse (README, "On the fediverse"), on the stores it is given: the
 * federation (./federation.ts), the reads lectern's server hands it, the delivery of posts that went
 * live, and the part that runs its queue.
 */
export function siteFediverse(options: SiteFediverseOptions): SiteFediverse {
  const { stores, handle, origin, posts, now } = options;
  const blockedDomains = options.blockedDomains ?? [];
  const log = options.log ?? console;
  const federation = createSiteFederation({
    ...options,
    kv: stores.kv,
    queue: stores.queue,
    log,
    delivery: {
      outboxRetryPolicy: options.retryPolicy ?? deliveryRetryPolicy(),
      // A server's failures are said once, when it is given up (./durable-queue.ts), not at each attempt.
      onOutboxError: (error) => deliveryHooks.failed(error),
      // Activities held while a server's circuit is open are dropped no later than the retries give up.
      circuitBreaker: { heldActivityTtl: { milliseconds: GIVE_UP_AFTER_MS } },
    },
  });
  federation.setOutboxPermanentFailureHandler((_ctx, failure) => {
    deliveryHooks.gaveUp(failure.reason === 'http' ? `${failure.statusCode}: the server has no such inbox` : 'its server stayed unreachable');
  });
  const sync = postSync({ kv: stores.kv, federation, origin, handle, now, posts, log });
  let listening: { controller: AbortController; done: Promise<void> } | undefined;

  const guard = inboxGuard({ limiter: options.limiter, deployment: options.deployment, blockedDomains });
  const fetchOptions = { contextData: undefined, onNotFound: notFound, onNotAcceptable: notFound };

  /**
   * An inbox post (anything that may carry a body to a fediverse URL: Fedify answers 405 where no
   * inbox is): the guard's limits and blocklist (./inbox-guard.ts), the body cap, then Fedify
   * (signature, activity). The client's address is in the headers (lib/http/client-ip.ts).
   */
  async function inboxPost(request: Request): Promise<Response> {
    const admitted = await guard.admitHeaders(request);
    // A refusal reads no more of the body: the connection closes after the answer.
    if (admitted.refused) return admitted.refused;
    const body = await readBody(request, INBOX_BODY_LIMIT);
    if (body === 'too-large')
      return problem('payload-too-large', `An activity is at most ${INBOX_BODY_LIMIT} bytes.`, { cache: 'write', headers: { Connection: 'close' } });
    const checked = guard.admitBody(body, admitted);
    if (checked.refused) return checked.refused;
    const response = await federation.fetch(
      new Request(request.url, { method: request.method, headers: request.headers, body: body as BodyInit }),
      fetchOptions,
    );
    // Taken (2xx) only once its signature verified with a key of its actor: then it counts against the actor's server's budget.
    if (response.ok && checked.server !== undefined) await guard.counted(checked.server);
    return withHeaders(response, { ...cacheHeaders('write'), ...checked.headers });
  }

  /** A request to a fediverse URL (./paths.ts), on the site's public URL: read, or posted to an inbox. */
  const respond = (request: Request): Promise<Response> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return inboxPost(request);
    const { pathname } = new URL(request.url);
    return federation.fetch(request, fetchOptions).then((response) => withHeaders(response, readHeaders(response, pathname)));
  };

  const reads: FediverseReads = (req, pathname) => {
    const route = fediverseRoute(req.method ?? 'GET', pathname, req.headers.accept);
    if (route !== 'fedify') return route;
    if (req.method === 'GET' || req.method === 'HEAD') return respond(requestHead(req, origin));
    // The address the limits count against, as the write routes find it (TRUST_PROXY), in the headers the request carries on.
    recordClientIp(req.headers, req.socket.remoteAddress);
    const head = requestHead(req, origin);
    const init = { method: head.method, headers: head.headers, body: Readable.toWeb(req) as ReadableStream, duplex: 'half' };
    return respond(new Request(head.url, init as RequestInit & { duplex: 'half' }));
  };

  // No follower, nothing to send: the actor's keys (a 4096-bit RSA key takes seconds of a core to make)
  // are not asked for at the minute a post goes live (./deploy.ts records it all the same).
  const deliver = (slugs: readonly string[]) => sync.wentLive(slugs);
  let syncing: Promise<void> | undefined;

  const part: Part = {
    name: 'fediverse',
    start() {
      const controller = new AbortController();
      const done = federation.startQueue(undefined, { signal: controller.signal }).catch((error: unknown) => {
        log.warn(`fediverse: the queue stopped (${describeError(error)})`);
      });
      listening = { controller, done };
      // What a deploy changed is sent in the background: the server does not wait for it to listen.
      // A store that fails meanwhile (a busy Redis) leaves some posts: they are tried again shortly.
      syncing = (async () => {
        for (let attempt = 1; !controller.signal.aborted; attempt += 1) {
          const complete = await sync.deployed().catch((error: unknown) => {
            log.warn(`fediverse: the posts could not be compared with what followers have (${describeError(error)})`);
            return false;
          });
          if (complete) return;
          if (attempt === DEPLOY_TRIES) {
            log.warn('fediverse: the posts are compared with what followers have again at the next start');
            return;
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, DEPLOY_RETRY_MS);
            controller.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          });
        }
      })();
    },
    // A shutdown begins: no message is taken any more, and the ones on the wire finish meanwhile.
    quiesce: () => listening?.controller.abort(),
    async stop() {
      // The ones on the wire finish (at most STOP_WAIT_MS), then the store closes.
      listening?.controller.abort();
      let timer: NodeJS.Timeout | undefined;
      const waited = await Promise.race([
        Promise.all([listening?.done, syncing]).then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.stopWaitMs ?? STOP_WAIT_MS))),
      ]);
      clearTimeout(timer);
      if (!waited) log.warn('fediverse: deliveries still on the wire at the stop are sent again by the next start');
      stores.close();
    },
  };

  return { reads, respond, deliver, deployed: () => sync.deployed(), part, federation };
}
