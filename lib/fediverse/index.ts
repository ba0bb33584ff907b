import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Federation } from '@fedify/fedify';
import { problem } from '../http/problem';
import { readBody } from '../http/body';
import { describeError } from '../log';
import type { Part } from '../runtime/runtime';
import type { Post } from '../content';
import { createOf, createSiteFederation, hasFollowers, type ActorProfile } from './federation';
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
   * once the activities are in the durable queue, not once they are delivered.
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
};

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
  const federation = createSiteFederation({ ...options, kv: stores.kv, queue: stores.queue, log });
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

  return { reads, deliver, part, federation };
}
