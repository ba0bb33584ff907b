import http from 'node:http';
import { Readable } from 'node:stream';
import { createFederation, generateCryptoKeyPair, MemoryKvStore, signRequest, type Federation } from '@fedify/fedify';
import {
  Activity,
  Announce,
  Create,
  Delete,
  Endpoints,
  Follow,
  getTypeId,
  isActor,
  Like,
  Note,
  Person,
  PUBLIC_COLLECTION,
  Tombstone,
  Undo,
  type Actor,
} from '@fedify/fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import { freePort } from './site';

/** An activity the peer's inbox took: Fedify verified its signature before the peer saw it (an unsigned or wrongly signed one is refused with 401). */
export type Received = { type: string; id: string | undefined; actor: string | undefined; inbox: string; activity: Activity };

/** What reached the peer's inboxes over HTTP, whatever became of it. */
export type InboxPost = { path: string; status: number; signed: boolean };

/** An inbox POST as it arrived, before it was answered: the activity's type and ID as sent (a copy sent twice arrives twice). */
export type Arrival = { type: string | undefined; id: string | undefined };

export type FediversePeerOptions = {
  /** The host its URLs are named on (`localhost`: a server a test can block by name); it listens on 127.0.0.1 all the same. */
  host?: string;
  /** Each inbox POST is answered this long after it arrived (a slow server): a delivery stays on the wire meanwhile. */
  inboxDelayMs?: number;
  /** Inbox POSTs are read and never answered (a server that takes connections and hangs): see `abandoned`. */
  inboxUnanswered?: boolean;
};

export type FediversePeer = {
  /** The peer's base URL (http://127.0.0.1:{port}, or on the host it was named with). */
  url: string;
  /** The paths of every GET it was asked (a server fetching its actor or key). */
  gets: string[];
  /** The peer's one account's actor URL. */
  actorUrl: string;
  /** The activities its inboxes took, verified, in the order they came. */
  received: Received[];
  /** Every POST to its inboxes, with the status it was answered. */
  posts: InboxPost[];
  /** Every POST to its inboxes, as it arrived (Fedify takes an activity it has seen once; this counts every copy). */
  arrivals: Arrival[];
  /** With `inboxUnanswered`: the inbox POSTs whose sender gave up waiting and closed the connection, each with how long it had waited (ms). */
  abandoned: (Arrival & { waitedMs: number })[];
  /** Finds an account by WebFinger (`acct:name@host`, asked of the host over plain HTTP, as loopback has no TLS), then reads its actor. */
  lookup(handle: string): Promise<Actor>;
  /** Follows an account (a signed `Follow` to its inbox); resolves with the Follow's ID. */
  follow(actor: Actor): Promise<string>;
  /** The headers of a POST of `activity` to `inbox` signed by the peer's account as Mastodon signs (HTTP Signatures, with a Digest of the body); nothing is sent. */
  signedPost(inbox: string, activity: unknown): Promise<Headers>;
  /** Takes a follow back (a signed `Undo` of the `Follow`). */
  unfollow(actor: Actor, followId: string): Promise<void>;
  /** Likes an object (a signed `Like` to `actor`'s inbox, as Mastodon's favourite); resolves with the Like's ID. */
  like(actor: Actor, objectId: string): Promise<string>;
  /** Takes a like back (a signed `Undo` of the `Like`, embedded as Mastodon sends it). */
  undoLike(actor: Actor, likeId: string, objectId: string): Promise<void>;
  /** Reposts an object (a signed `Announce`, as Mastodon's boost); resolves with its ID. */
  announce(actor: Actor, objectId: string): Promise<string>;
  /** Replies to an object: a `Create` of a public `Note` in reply to it, with this HTML; resolves with the Note's ID. */
  reply(actor: Actor, objectId: string, html: string): Promise<string>;
  /** Deletes a reply: a `Delete` of it (a `Tombstone`, as Mastodon sends it). */
  deleteReply(actor: Actor, noteId: string): Promise<void>;
  stop(): Promise<void>;
};

const NAME = 'reader';

function arrivalOf(bytes: ArrayBuffer): Arrival {
  try {
    const activity = JSON.parse(new TextDecoder().decode(bytes)) as { type?: unknown; id?: unknown };
    return { type: typeof activity.type === 'string' ? activity.type : undefined, id: typeof activity.id === 'string' ? activity.id : undefined };
  } catch {
    return { type: undefined, id: undefined };
  }
}

/**
 * A second ActivityPub server for tests, built with Fedify, on loopback: one account
 * (`@reader@127.0.0.1:{port}`) that can look an account up by WebFinger, follow and unfollow it,
 * like, repost and reply to its posts (and take them back), and records what its inbox and shared
 * inbox took (each signature verified by Fedify).
 */
export async function startFediversePeer(options: FediversePeerOptions = {}): Promise<FediversePeer> {
  const port = await freePort();
  // Named on `host` (`localhost`: a server a test can block by name), listening on 127.0.0.1 all the same.
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;
  const gets: string[] = [];
  const keys = [await generateCryptoKeyPair('RSASSA-PKCS1-v1_5'), await generateCryptoKeyPair('Ed25519')];
  const received: Received[] = [];
  const posts: InboxPost[] = [];
  const arrivals: Arrival[] = [];
  const abandoned: (Arrival & { waitedMs: number })[] = [];
  // No queue: what it sends is sent at once, within the call.
  const federation: Federation<void> = createFederation<void>({ kv: new MemoryKvStore(), origin: url, allowPrivateAddress: true });
  federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      if (identifier !== NAME) return null;
      const pairs = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name: 'A reader',
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        publicKey: pairs[0]?.cryptographicKey,
        assertionMethods: pairs.map((pair) => pair.multikey),
      });
    })
    .setKeyPairsDispatcher((_ctx, identifier) => (identifier === NAME ? keys : []));
  federation.setInboxListeners('/users/{identifier}/inbox', '/inbox').on(Activity, (ctx, activity) => {
    const type = getTypeId(activity).href.replace(/^.*#/, '');
    received.push({ type, id: activity.id?.href, actor: activity.actorId?.href, inbox: ctx.recipient ? 'personal' : 'shared', activity });
  });

  const server = http.createServer((req, res) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    const method = req.method ?? 'GET';
    if (method === 'GET') gets.push(req.url ?? '/');
    const body = method === 'GET' || method === 'HEAD' ? Promise.resolve(undefined) : new Response(Readable.toWeb(req) as ReadableStream).arrayBuffer();
    const arrivedAt = Date.now();
    body
      .then((bytes) => {
        if (bytes && method === 'POST') arrivals.push(arrivalOf(bytes));
        if (bytes && method === 'POST' && options.inboxUnanswered) {
          // Never answered: what the sender does with the connection is all there is to see.
          res.once('close', () => abandoned.push({ ...arrivalOf(bytes), waitedMs: Date.now() - arrivedAt }));
          return new Promise<never>(() => undefined);
        }
        return federation.fetch(new Request(new URL(req.url ?? '/', url), { method, headers, body: bytes }), { contextData: undefined });
      })
      .then(async (response) => {
        if (method === 'POST')
          posts.push({ path: (req.url ?? '/').split('?', 1)[0]!, status: response.status, signed: headers.has('signature') || headers.has('signature-input') });
        if (method === 'POST' && options.inboxDelayMs) await new Promise((resolve) => setTimeout(resolve, options.inboxDelayMs));
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const ctx = () => federation.createContext(new URL(url), undefined);
  const me = () => ctx().getActorUri(NAME);

  return {
    url,
    gets,
    actorUrl: me().href,
    received,
    posts,
    arrivals,
    abandoned,
    async lookup(handle) {
      const [, host] = handle.replace(/^acct:/, '').split('@');
      const answer = await fetch(`http://${host}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${handle.replace(/^acct:/, '')}`)}`, {
        headers: { Accept: 'application/jrd+json' },
      });
      if (!answer.ok) throw new Error(`WebFinger answered ${answer.status} for ${handle}`);
      const links = ((await answer.json()) as { links?: { rel: string; type?: string; href?: string }[] }).links ?? [];
      const self = links.find((link) => link.rel === 'self' && link.type === 'application/activity+json')?.href;
      if (!self) throw new Error(`WebFinger gave no actor for ${handle}`);
      const actor = await ctx().lookupObject(self);
      if (!isActor(actor)) throw new Error(`${self} is not an actor`);
      return actor;
    },
    async follow(actor) {
      const id = new URL(`${me().href}#follows/${crypto.randomUUID()}`);
      await ctx().sendActivity({ identifier: NAME }, actor, new Follow({ id, actor: me(), object: actor.id }));
      return id.href;
    },
    async signedPost(inbox, activity) {
      const request = new Request(inbox, { method: 'POST', headers: { 'Content-Type': 'application/activity+json' }, body: JSON.stringify(activity) });
      const signed = await signRequest(request, keys[0]!.privateKey, new URL('#main-key', me()), { spec: 'draft-cavage-http-signatures-12' });
      return signed.headers;
    },
    async unfollow(actor, followId) {
      const follow = new Follow({ id: new URL(followId), actor: me(), object: actor.id });
      await ctx().sendActivity({ identifier: NAME }, actor, new Undo({ id: new URL(`${followId}/undo`), actor: me(), object: follow }));
    },
    async like(actor, objectId) {
      const id = new URL(`${me().href}#likes/${crypto.randomUUID()}`);
      await ctx().sendActivity({ identifier: NAME }, actor, new Like({ id, actor: me(), object: new URL(objectId) }));
      return id.href;
    },
    async undoLike(actor, likeId, objectId) {
      const like = new Like({ id: new URL(likeId), actor: me(), object: new URL(objectId) });
      await ctx().sendActivity({ identifier: NAME }, actor, new Undo({ id: new URL(`${likeId}/undo`), actor: me(), object: like }));
    },
    async announce(actor, objectId) {
      const id = new URL(`${url}/users/${NAME}/statuses/${crypto.randomUUID()}/activity`);
      await ctx().sendActivity({ identifier: NAME }, actor, new Announce({ id, actor: me(), object: new URL(objectId), to: PUBLIC_COLLECTION }));
      return id.href;
    },
    async reply(actor, objectId, html) {
      const noteId = new URL(`${url}/users/${NAME}/statuses/${crypto.randomUUID()}`);
      const note = new Note({
        id: noteId,
        attribution: me(),
        replyTarget: new URL(objectId),
        content: html,
        url: new URL(`${url}/@${NAME}/${noteId.pathname.split('/').pop()}`),
        published: Temporal.Now.instant(),
        to: PUBLIC_COLLECTION,
      });
      await ctx().sendActivity(
        { identifier: NAME },
        actor,
        new Create({ id: new URL(`${noteId.href}/activity`), actor: me(), object: note, to: PUBLIC_COLLECTION }),
      );
      return noteId.href;
    },
    async deleteReply(actor, noteId) {
      await ctx().sendActivity(
        { identifier: NAME },
        actor,
        new Delete({ id: new URL(`${noteId}#delete`), actor: me(), object: new Tombstone({ id: new URL(noteId) }), to: PUBLIC_COLLECTION }),
      );
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // An inbox POST never answered would hold the close for good.
        server.closeAllConnections();
      }),
  };
}
