import { problem } from '../http/problem';
import { admit, rateLimitHeaders } from '../limits/admission';
import type { Limiter } from '../limits/limiter';
import type { Settings } from '../settings';

/** Whether `hostname` is one of the blocked domains or under one (a domain blocks its subdomains). */
export function isBlockedHost(hostname: string, blockedDomains: readonly string[]): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return blockedDomains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

/** The URL `value` names, or undefined when it is not an absolute http(s) URL. */
function httpUrl(value: unknown): URL | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
}

/**
 * The keys that signed a request, as their URLs: the `keyId` of an HTTP Signature (as Mastodon
 * signs) and the `keyid` of each RFC 9421 signature. Read from the headers alone, before anything
 * is fetched or verified: only what a sender claims.
 */
export function signingKeys(headers: Headers): URL[] {
  const claimed = [
    ...(headers.get('signature') ?? '').matchAll(/(?:^|,)\s*keyId\s*=\s*"([^"]*)"/gi),
    ...(headers.get('signature-input') ?? '').matchAll(/;\s*keyid\s*=\s*"([^"]*)"/gi),
  ];
  return claimed.map((match) => httpUrl(match[1])).filter((url) => url !== undefined);
}

/** The actor an activity names (`actor` as a URL, an object with an `id`, or a list of either), from its body as sent. */
export function activityActors(body: Uint8Array): URL[] {
  let activity: unknown;
  try {
    activity = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return [];
  }
  if (typeof activity !== 'object' || activity === null) return [];
  const actor = (activity as { actor?: unknown }).actor;
  return [actor]
    .flat()
    .map((entry) => httpUrl(typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : entry))
    .filter((url) => url !== undefined);
}

export type InboxGuardOptions = {
  limiter: () => Limiter;
  deployment: Settings['deployment'];
  blockedDomains: readonly string[];
  clock?: () => number;
};

/**
 * What the guard decided about an inbox post: refused (the answer), or let through. Once the body is
 * read, `server` is the host of its actor: the server a post Fedify verified is counted against.
 */
export type InboxAdmission = { refused: Response } | { refused?: undefined; server: string | undefined; headers: Record<string, string> };

const unsigned = (headers: Record<string, string>) =>
  problem('unauthorized', 'An inbox post is signed (HTTP Signatures, or RFC 9421) with a key of its actor.', {
    cache: 'write',
    headers: { ...headers, Connection: 'close' },
  });
const noActor = () => problem('invalid-body', 'A signed activity names its actor (`actor`).', { cache: 'write', headers: { Connection: 'close' } });

const blocked = () => problem('blocked-server', 'This site takes nothing from your server.', { cache: 'write', headers: { Connection: 'close' } });

/**
 * The inbox's limits and blocklist (README, "On the fediverse": Safety), around Fedify's own checks:
 * - every post counts against its client address's budget (`fediverseInbox`), signed or not;
 * - a post that names no signing key is refused (401) from its headers: nothing is read, fetched or
 *   parsed for it;
 * - a post signed with a key of a blocked domain is refused (403) before its body is read, and one
 *   whose activity names an actor there once the body is read: in both cases before Fedify fetches
 *   any key;
 * - a remote server whose verified posts went over its budget (`fediverseServer`) is answered 429
 *   until it may send again, whether its key or its actor is named. A post Fedify verified is
 *   counted against the server of its `actor` (`counted`): Fedify takes it only when the key that
 *   verified is that actor's, so the budget charged is always the verified signer's, whatever other
 *   keys the headers name (no one spends another server's budget by naming its keys).
 * Each refusal is a problem (application/problem+json) with `Retry-After` where waiting helps.
 */
export function inboxGuard(options: InboxGuardOptions) {
  const clock = options.clock ?? Date.now;
  /** Servers over their budget, and when each may send again (this instance's view; the counts are the limiter's). */
  const waitUntil = new Map<string, number>();

  function overBudget(server: string): Response | undefined {
    const until = waitUntil.get(server);
    if (until === undefined) return undefined;
    const wait = Math.ceil((until - clock()) / 1000);
    if (wait <= 0) {
      waitUntil.delete(server);
      return undefined;
    }
    return problem('rate-limited', `Too many activities from your server. Try again in ${wait} second${wait === 1 ? '' : 's'}.`, {
      cache: 'write',
      headers: { 'Retry-After': String(wait), Connection: 'close', ...rateLimitHeaders('fediverseServer') },
    });
  }

  function firstOverBudget(urls: readonly URL[]): Response | undefined {
    for (const url of urls) {
      const refused = overBudget(url.host);
      if (refused) return refused;
    }
    return undefined;
  }

  return {
    /** Before the body is read: the address's budget, a blocked signer, a server over its budget. */
    async admitHeaders(request: Request): Promise<InboxAdmission> {
      const admission = await admit(request, 'fediverseInbox', options.limiter(), options.deployment);
      if (!admission.ok) {
        const { refusal } = admission;
        const headers = { ...refusal.headers, ...admission.headers, Connection: 'close' };
        return { refused: problem(refusal.problem, refusal.detail, { cache: 'write', headers }) };
      }
      const keys = signingKeys(request.headers);
      if (keys.length === 0) return { refused: unsigned(admission.headers) };
      if (keys.some((key) => isBlockedHost(key.hostname, options.blockedDomains))) return { refused: blocked() };
      const refused = firstOverBudget(keys);
      return refused ? { refused } : { server: undefined, headers: admission.headers };
    },
    /** Once the body is read: an activity that names no actor, one whose actor is on a blocked domain, or whose actor's server is over its budget. */
    admitBody(body: Uint8Array, admitted: Exclude<InboxAdmission, { refused: Response }>): InboxAdmission {
      const actors = activityActors(body);
      if (actors.length === 0) return { refused: noActor() };
      if (actors.some((actor) => isBlockedHost(actor.hostname, options.blockedDomains))) return { refused: blocked() };
      const refused = firstOverBudget(actors);
      // Fedify verifies the first actor's ownership of the key that signed (`actorId`).
      return refused ? { refused } : { ...admitted, server: actors[0]!.host };
    },
    /** Fedify took a post from `server`, its actor's (signed with that actor's key): it counts against the server's budget, and past it the server waits. */
    async counted(server: string): Promise<void> {
      const decision = await options.limiter().check('fediverseServer', `server:${server}`);
      if (decision.allowed) return;
      // Bounded: a server's entry goes once its wait is over, here or at its next post.
      if (waitUntil.size >= 1000) for (const [name, until] of waitUntil) if (until <= clock()) waitUntil.delete(name);
      waitUntil.set(server, clock() + decision.retryAfterSeconds * 1000);
    },
  };
}

export type InboxGuard = ReturnType<typeof inboxGuard>;
