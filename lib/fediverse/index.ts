import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { createExponentialBackoffPolicy, type Federation, type RetryPolicy } from '@fedify/fedify';
import { problem } from '../http/problem';
import { readBody } from '../http/body';
import { describeError } from '../log';
import type { Part } from '../runtime/runtime';
import type { Post } from '../content';
import { createSiteFederation, type ActorProfile } from './federation';
import { postSync } from './deploy';
import { deliveryHooks } from './durable-queue';
import { fediverseRoute, INBOX_BODY_LIMIT } from './paths';
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
   * Posts went live (claimed once across instances: lib/publishing/went-live.ts): a `Create` of
   * each is queued for every follower, through shared inboxes where servers offer them. Resolves
   * once the activities are in the durable queue, not once they are delivered. At start the part
   * sends what a deploy changed (./deploy.ts: `Update`, `Delete`).
   */
  deliver: (slugs: readonly string[]) => Promise<void>;
  /** The queue's listener (outgoing deliveries, incoming activities), started and stopped by the runtime. */
  part: Part;
  federation: Federation<void>;
};

export type SiteFediverseOptions = {
  stores: FediverseStores;
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

/** The request as a Fetch `Request` on the site's public URL (the URL signatures and IDs are made on), with the body read, up to `limit`. */
async function webRequest(req: IncomingMessage, origin: string, limit: number): Promise<Request | 'too-large'> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const url = new URL(req.url ?? '/', origin);
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers });
  const streamed = new Request(url, { method, headers, body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } as RequestInit & { duplex: 'half' });
  const body = await readBody(streamed, limit);
  if (body === 'too-large') return body;
  return new Request(url, { method, headers, body: body as BodyInit });
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

  const reads: FediverseReads = (req, pathname) => {
    const route = fediverseRoute(req.method ?? 'GET', pathname, req.headers.accept);
    if (route !== 'fedify') return route;
    return (async () => {
      const request = await webRequest(req, origin, INBOX_BODY_LIMIT);
      // The rest of the body is not read: the connection closes after the answer.
      if (request === 'too-large')
        return problem('payload-too-large', `An activity is at most ${INBOX_BODY_LIMIT} bytes.`, { cache: 'write', headers: { Connection: 'close' } });
      return federation.fetch(request, { contextData: undefined, onNotFound: notFound, onNotAcceptable: notFound });
    })();
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

  return { reads, deliver, part, federation };
}
