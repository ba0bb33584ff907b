import {
  createFederation,
  exportJwk,
  generateCryptoKeyPair,
  importJwk,
  type Context,
  type Federation,
  type FederationOptions as FedifyOptions,
  type KvStore,
  type MessageQueue,
} from '@fedify/fedify';
import {
  Accept,
  Announce,
  Article,
  Create,
  Delete,
  Endpoints,
  Follow,
  Hashtag,
  Image,
  Like,
  Person,
  PropertyValue,
  PUBLIC_COLLECTION,
  Undo,
  Update,
  type Recipient,
} from '@fedify/fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import { contentPaths, tagSlug, type Post } from '../content';
import { escapeHtml } from '../http/html';
import { describeError } from '../log';
import { reactionInbox } from './inbox-reactions';
import { isBlockedHost } from './inbox-guard';
import { KEPT } from './kept';
import { fediversePaths } from './paths';
import { reactionStore } from './reactions';
import { deliverableInboxes, remoteFetchLoaders } from './remote-fetch';

/** A profile of the author's elsewhere (`links` of content/site.yaml). */
export type ProfileLink = { name: string; url: string };

/** What the site's actor shows of the site (content/site.yaml): its name, summary and the author's profiles. */
export type ActorProfile = { name: string; summary: string; links?: readonly ProfileLink[] };

/**
 * A profile link as Mastodon writes a profile field: a `PropertyValue` whose value is a link with
 * `rel="me"` (Mastodon marks it verified once the page there links back to the site), shown
 * without its scheme; every character of the author's text escaped.
 */
export function profileField(link: ProfileLink): PropertyValue {
  const shown = link.url.replace(/^https?:\/\//, '').replace(/\/$/, '');
  return new PropertyValue({
    name: link.name,
    value: `<a href="${escapeHtml(link.url)}" rel="me nofollow noopener noreferrer" target="_blank">${escapeHtml(shown)}</a>`,
  });
}

/**
 * What the federation is made from: its stores, the site's public URL (every ID and handle is made
 * on it), the actor's handle, the posts live at a moment (lib/content's one list) and the clock the
 * site judges that by, and the profile.
 */
export type FederationOptions = {
  kv: KvStore;
  queue: MessageQueue;
  origin: string;
  handle: string;
  /** The moment the site's reads have caught up with (lib/publishing: a post's URLs answer as before its time until its page is made). */
  now: () => number;
  /** The posts live at a moment, newest first (lib/content `publishedPosts`). */
  posts: (at: number) => readonly Post[];
  profile: () => ActorProfile;
  /** Tests only: remote actors, keys and inboxes may be on loopback and private addresses, over http (FEDIVERSE_LOOPBACK). */
  allowPrivateAddress: boolean;
  /** Servers never fetched from or delivered to, each with its subdomains (FEDIVERSE_BLOCKED_DOMAINS). */
  blockedDomains?: readonly string[];
  log?: Pick<Console, 'warn'>;
  /** How a failed delivery is retried and reported (lib/fediverse/index.ts: retries with backoff, a server given up after a bounded time). */
  delivery?: Pick<FedifyOptions<void>, 'outboxRetryPolicy' | 'onOutboxError' | 'circuitBreaker'>;
};

/** A follower as kept: enough to deliver to it without asking its server again. */
type Follower = { id: string; inbox: string; sharedInbox: string | null };

const FOLLOWERS = KEPT.followers;
const KEYS = KEPT.keys;
/** Outbox pages: this many activities each. */
const OUTBOX_PAGE = 20;

type StoredKeys = { privateKey: JsonWebKey; publicKey: JsonWebKey }[];

/**
 * A new RSA key pair for HTTP Signatures: 2048 bits, as Mastodon makes its own, where Fedify's
 * `generateCryptoKeyPair` makes 4096 (each signature then costs about six times the CPU, and every
 * delivery to every inbox is signed). A set already kept keeps its key: only new sites get these.
 */
function rsaKeyPair(): Promise<CryptoKeyPair> {
  const algorithm = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
  return crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
}

/**
 * The actor's key pairs (RSA for Mastodon's HTTP Signatures, Ed25519 for object proofs), made on
 * first use and kept in the store: the first instance to keep a set wins, and every other one takes
 * that set (`cas` where the store has it), so the keys never change once published.
 */
function siteKeyPairs(kv: KvStore): () => Promise<CryptoKeyPair[]> {
  let loading: Promise<CryptoKeyPair[]> | undefined;
  const imported = (stored: StoredKeys) =>
    Promise.all(
      stored.map(async (pair) => ({ privateKey: await importJwk(pair.privateKey, 'private'), publicKey: await importJwk(pair.publicKey, 'public') })),
    );
  async function load(): Promise<CryptoKeyPair[]> {
    const stored = await kv.get<StoredKeys>(KEYS);
    if (stored) return imported(stored);
    const made = [await rsaKeyPair(), await generateCryptoKeyPair('Ed25519')];
    const exported = await Promise.all(
      made.map(async (pair) => ({ privateKey: await exportJwk(pair.privateKey), publicKey: await exportJwk(pair.publicKey) })),
    );
    if (!kv.cas) {
      await kv.set(KEYS, exported);
      return made;
    }
    if (await kv.cas(KEYS, undefined, exported)) return made;
    return imported((await kv.get<StoredKeys>(KEYS)) ?? exported);
  }
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

/** The ID of the `Create` that announces a post: one per post, so a server that gets it twice keeps it once. */
export function createActivityId(articleId: URL): URL {
  return new URL(`${articleId.href}#create`);
}

/**
 * The site on the fediverse, built with Fedify (nothing of the protocol is written here): one actor
 * (a `Person` named after the site, under `/@{handle}`), WebFinger and NodeInfo, an outbox of the
 * posts live now, a followers collection whose count is public and whose members are not, each
 * live post's `Article` at its page's URL, and an inbox that accepts a `Follow` at once and honours
 * its `Undo`. Inbox posts are verified by Fedify (HTTP Signatures, RFC 9421); outgoing activities
 * go through `queue` (durable, retried with backoff). Made once per process; the queue is started
 * by the runtime (lib/fediverse/index.ts).
 */
export function createSiteFederation(options: FederationOptions): Federation<void> {
  const { kv, handle, now, posts } = options;
  const blockedDomains = options.blockedDomains ?? [];
  const log = options.log ?? console;
  const origin = new URL(options.origin);
  const keyPairs = siteKeyPairs(kv);
  const federation = createFederation<void>({
    kv,
    queue: options.queue,
    manuallyStartQueue: true,
    origin: origin.origin,
    // Remote actors, keys and objects: https only, public addresses, a timeout, cached (./remote-fetch.ts).
    ...remoteFetchLoaders({ kv, allowPrivateAddress: options.allowPrivateAddress, blockedDomains }),
    onOutboxError: (error, activity) => log.warn(`fediverse: delivering ${activity?.id?.href ?? 'an activity'} failed (${describeError(error)})`),
    ...options.delivery,
  });

  const livePost = (slug: string) => posts(now()).find((post) => post.slug === slug);

  federation.setNodeInfoDispatcher(fediversePaths.nodeInfo, () => ({
    software: { name: 'lectern', version: '0.1.0', homepage: origin },
    protocols: ['activitypub'],
    openRegistrations: false,
    usage: { users: { total: 1, activeMonth: 1, activeHalfyear: 1 }, localPosts: posts(now()).length, localComments: 0 },
  }));

  federation
    .setActorDispatcher(fediversePaths.actor, async (ctx, identifier) => {
      if (identifier !== handle) return null;
      const keys = await ctx.getActorKeyPairs(identifier);
      const profile = options.profile();
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: identifier,
        name: profile.name,
        summary: profile.summary,
        url: new URL('/', origin),
        attachments: (profile.links ?? []).map(profileField),
        icon: new Image({ url: new URL('/icon', origin), mediaType: 'image/png' }),
        image: new Image({ url: new URL('/opengraph-image', origin), mediaType: 'image/png' }),
        inbox: ctx.getInboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        outbox: ctx.getOutboxUri(identifier),
        followers: ctx.getFollowersUri(identifier),
        manuallyApprovesFollowers: false,
        discoverable: true,
        indexable: true,
        publicKey: keys[0]?.cryptographicKey,
        assertionMethods: keys.map((key) => key.multikey),
      });
    })
    .setKeyPairsDispatcher(async (_ctx, identifier) => (identifier === handle ? keyPairs() : []));

  federation.setObjectDispatcher(Article, fediversePaths.article, (ctx, values) => {
    const post = livePost(values.slug);
    return post ? articleOf(ctx, post, handle) : null;
  });

  federation
    .setOutboxDispatcher(fediversePaths.outbox, (ctx, identifier, cursor) => {
      if (identifier !== handle || cursor === null) return null;
      const start = Number(cursor);
      if (!Number.isInteger(start) || start < 0) return null;
      const live = posts(now());
      const page = live.slice(start, start + OUTBOX_PAGE);
      const next = start + OUTBOX_PAGE < live.length ? String(start + OUTBOX_PAGE) : null;
      return { items: page.map((post) => createOf(ctx, post, handle)), nextCursor: next };
    })
    .setCounter((_ctx, identifier) => (identifier === handle ? posts(now()).length : null))
    .setFirstCursor((_ctx, identifier) => (identifier === handle ? '0' : null));

  // The followers: the count is public, the members are not (a page asked for over HTTP is empty);
  // delivery asks for all of them at once (cursor null), and gets each one's inboxes as kept. A
  // follower on a blocked domain (FEDIVERSE_BLOCKED_DOMAINS), or whose inboxes are not https outside
  // the tests, is dropped and gets nothing.
  async function* deliverable(): AsyncGenerator<Follower> {
    for await (const entry of kv.list(FOLLOWERS)) {
      const follower = entry.value as Follower;
      const urls = [follower.id, follower.inbox, follower.sharedInbox].filter((url) => url !== null).map((url) => new URL(url));
      const refused = urls.some((url) => isBlockedHost(url.hostname, blockedDomains) || (url.protocol !== 'https:' && !options.allowPrivateAddress));
      if (refused) await kv.delete(entry.key);
      else yield follower;
    }
  }
  federation
    .setFollowersDispatcher(fediversePaths.followers, async (_ctx, identifier, cursor) => {
      if (identifier !== handle) return null;
      if (cursor !== null) return { items: [] };
      const items: Recipient[] = [];
      for await (const follower of deliverable()) {
        items.push({
          id: new URL(follower.id),
          inboxId: new URL(follower.inbox),
          endpoints: { sharedInbox: follower.sharedInbox ? new URL(follower.sharedInbox) : null },
        });
      }
      return { items };
    })
    .setCounter(async (_ctx, identifier) => {
      if (identifier !== handle) return null;
      return (await Array.fromAsync(deliverable())).length;
    })
    .setFirstCursor((_ctx, identifier) => (identifier === handle ? '' : null));

  // Likes, reposts and replies of a live post (./inbox-reactions.ts), kept in the same store (./reactions.ts).
  const reactions = reactionInbox(reactionStore(kv), (slug) => livePost(slug) !== undefined);
  federation
    .setInboxListeners(fediversePaths.inbox, fediversePaths.sharedInbox)
    .on(Follow, async (ctx, follow) => {
      if (!follow.id || !follow.actorId || !follow.objectId) return;
      const target = ctx.parseUri(follow.objectId);
      if (target?.type !== 'actor' || target.identifier !== handle) return;
      const follower = await follow.getActor(ctx);
      if (!follower?.id || !follower.inboxId) return;
      const inboxes = [follower.inboxId, ...(follower.endpoints?.sharedInbox ? [follower.endpoints.sharedInbox] : [])];
      if (!(await deliverableInboxes(inboxes, { allowPrivateAddress: options.allowPrivateAddress, blockedDomains }))) {
        log.warn(`fediverse: a follow from ${follower.id.href} is not kept: its inbox is not https on a public address, or on a blocked domain`);
        return;
      }
      const kept: Follower = { id: follower.id.href, inbox: follower.inboxId.href, sharedInbox: follower.endpoints?.sharedInbox?.href ?? null };
      await kv.set([...FOLLOWERS, kept.id], kept);
      await ctx.sendActivity(
        { identifier: handle },
        follower,
        new Accept({ id: new URL(`${follow.id.href}#accept`), actor: ctx.getActorUri(handle), object: follow }),
      );
    })
    .on(Like, reactions.like)
    .on(Announce, reactions.announce)
    .on(Create, reactions.create)
    .on(Update, reactions.update)
    .on(Delete, reactions.delete)
    .on(Undo, async (ctx, undo) => {
      const object = await undo.getObject(ctx);
      if (object instanceof Like || object instanceof Announce) return reactions.undo(ctx, undo.actorId, object);
      if (!(object instanceof Follow) || !undo.actorId || object.actorId?.href !== undo.actorId.href) return;
      const target = object.objectId && ctx.parseUri(object.objectId);
      if (!target || target.type !== 'actor' || target.identifier !== handle) return;
      await kv.delete([...FOLLOWERS, undo.actorId.href]);
    });

  return federation;
}

/** A post as an ActivityStreams `Article`: title, summary, a link to its page, its tags as hashtags, the site's actor as author. */
export function articleOf(ctx: Context<void>, post: Post, handle: string): Article {
  return new Article({
    id: ctx.getObjectUri(Article, { slug: post.slug }),
    attribution: ctx.getActorUri(handle),
    name: post.title,
    summary: post.description,
    content: `<p>${escapeHtml(post.description)}</p><p><a href="${escapeHtml(post.url)}">${escapeHtml(post.url)}</a></p>`,
    url: new URL(post.url),
    published: Temporal.Instant.fromEpochMilliseconds(post.dateMillis),
    updated: post.updatedMillis === undefined ? undefined : Temporal.Instant.fromEpochMilliseconds(post.updatedMillis),
    tags: post.tags.map((tag) => new Hashtag({ name: `#${tag.replace(/\s+/g, '')}`, href: new URL(contentPaths.tag(tagSlug(tag)), ctx.canonicalOrigin) })),
    to: PUBLIC_COLLECTION,
    cc: ctx.getFollowersUri(handle),
  });
}

/** The `Create` that announces a post (in the outbox and to followers). */
export function createOf(ctx: Context<void>, post: Post, handle: string): Create {
  const article = articleOf(ctx, post, handle);
  return new Create({
    id: createActivityId(article.id!),
    actor: ctx.getActorUri(handle),
    object: article,
    published: article.published,
    to: PUBLIC_COLLECTION,
    cc: ctx.getFollowersUri(handle),
  });
}
