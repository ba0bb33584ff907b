import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Federation } from '@fedify/fedify';
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
import { createOf, createSiteFederation, type ActorProfile } from './federation';
import { inboxGuard } from './inbox-guard';
import { hasFollowers } from './kept';
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
   * once the activities are in the durable queue, not once they are delivered.
   */
  deliver: (slugs: readonly string[]) => Promise<void>;
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
};

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
  const federation = createSiteFederation({ ...options, kv: stores.kv, queue: stores.queue, log });
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
    // Taken (2xx) only once its signature verified: then it counts against its server's budget.
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

  async function deliver(slugs: readonly string[]): Promise<void> {
    // No follower, nothing to send: the actor's keys (an RSA key takes a core tenths of a second to make)
    // are not asked for at the minute a post goes live.
    if (slugs.length === 0 || !(await hasFollowers(stores.kv))) return;
    const ctx = federation.createContext(new URL(origin), undefined);
    const live = posts(now());
    for (const slug of slugs) {
      const post = live.find((candidate) => candidate.slug === slug);
      if (!post) continue;
      await ctx.sendActivity({ identifier: handle }, 'followers', createOf(ctx, post, handle), { preferSharedInbox: true });
      log.log(`fediverse: ${post.url} queued for its followers`);
    }
  }

  const part: Part = {
    name: 'fediverse',
    start() {
      const controller = new AbortController();
      const done = federation.startQueue(undefined, { signal: controller.signal }).catch((error: unknown) => {
        log.warn(`fediverse: the queue stopped (${describeError(error)})`);
      });
      listening = { controller, done };
    },
    async stop() {
      listening?.controller.abort();
      await listening?.done;
      stores.close();
    },
  };

  return { reads, respond, deliver, part, federation };
}
