import { createHash } from 'node:crypto';
import type { Context, Federation, KvKey, KvStore } from '@fedify/fedify';
import { Article, Delete, PUBLIC_COLLECTION, Tombstone, Update, type Activity } from '@fedify/fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import type { Post } from '../content';
import { describeError } from '../log';
import { leaseOwner, ownerIsDead } from './durable-queue';
import { articleOf, createOf } from './federation';
import { hasFollowers } from './kept';

/**
 * What the fediverse was last sent of a post (kept per slug in the fediverse's store): a hash of its
 * `Article` as federated, the last activity about it (`delete`: taken down), and whether that
 * activity is in the queue (false: claimed by an instance that may have stopped before queueing it).
 */
export type FederatedPost = {
  hash: string;
  kind: 'create' | 'update' | 'delete';
  queued: boolean;
  /** While not queued: the instance that claimed it (./durable-queue.ts `leaseOwner`), and when (epoch ms). */
  by?: string;
  at?: number;
};

/** A claim not queued after this long was left by an instance that stopped (queueing takes a moment). */
const CLAIM_STALE_MS = 60_000;

const FEDERATED: readonly [string, string] = ['lectern', 'federated'];
/** The moment the site first ran on the fediverse: posts live before it were never announced, and are not at a deploy. */
const SINCE: KvKey = ['lectern', 'fediverse-since'];

export type PostSyncOptions = {
  kv: KvStore;
  federation: Federation<void>;
  origin: string;
  handle: string;
  now: () => number;
  posts: (at: number) => readonly Post[];
  log: Pick<Console, 'log' | 'warn'>;
};

export type PostSync = {
  /** Posts went live (claimed once, lib/publishing/went-live.ts): a `Create` of each not federated yet. */
  wentLive(slugs: readonly string[]): Promise<void>;
  /**
   * At start (a deploy): an `Update` of each live post whose `Article` changed, a `Delete` of each
   * federated post no longer live, a `Create` of one that went live while the fediverse was on but
   * was never queued, and the rest recorded without a word. Resolves with whether every post went
   * through (a store that failed leaves some for another try).
   */
  deployed(): Promise<boolean>;
};

const hashOf = (json: unknown) => createHash('sha256').update(JSON.stringify(json)).digest('base64url');

/** The `Update` of a post's `Article`: its ID names the version, and `updated` is at least now (Mastodon shows an edit only when it is newer). */
export function updateOf(ctx: Context<void>, post: Post, handle: string, hash: string, at: number): Update {
  const article = articleOf(ctx, post, handle).clone({ updated: Temporal.Instant.fromEpochMilliseconds(Math.max(post.updatedMillis ?? 0, at)) });
  return new Update({
    id: new URL(`${article.id!.href}#update-${hash.slice(0, 16)}`),
    actor: ctx.getActorUri(handle),
    object: article,
    published: Temporal.Instant.fromEpochMilliseconds(at),
    to: PUBLIC_COLLECTION,
    cc: ctx.getFollowersUri(handle),
  });
}

/** The `Delete` of a post taken down: a `Tombstone` where its `Article` was. */
export function deleteOf(ctx: Context<void>, slug: string, handle: string, hash: string, at: number): Delete {
  const id = ctx.getObjectUri(Article, { slug });
  return new Delete({
    id: new URL(`${id.href}#delete-${hash.slice(0, 16)}`),
    actor: ctx.getActorUri(handle),
    object: new Tombstone({ id, deleted: Temporal.Instant.fromEpochMilliseconds(at) }),
    to: PUBLIC_COLLECTION,
    cc: ctx.getFollowersUri(handle),
  });
}

/**
 * Keeps the fediverse's copy of the posts in step with the site. Each change is claimed in the
 * store (`cas` on the post's record), so one instance sends it; the activity is queued, then the
 * record says so. A record claimed but not queued (the instance stopped between the two) is sent
 * at the next start: its activity's ID is the same, and the delivery ledger (./durable-queue.ts)
 * skips every inbox it already reached.
 */
export function postSync(options: PostSyncOptions): PostSync {
  const { kv, federation, handle, now, posts, log } = options;
  const key = (slug: string): KvKey => [...FEDERATED, slug];
  const context = () => federation.createContext(new URL(options.origin), undefined);
  const self = leaseOwner();
  /** A claim of this instance, not queued yet. */
  const claimed = (hash: string, kind: FederatedPost['kind']): FederatedPost => ({ hash, kind, queued: false, by: self, at: Date.now() });
  /** A claim another instance left without queueing it: it stopped in between (known dead, or long ago). */
  const abandoned = (record: FederatedPost) =>
    !record.queued && (record.by === undefined || ownerIsDead(record.by, self) || Date.now() - (record.at ?? 0) >= CLAIM_STALE_MS);

  async function since(): Promise<number> {
    const at = now();
    if (kv.cas) await kv.cas(SINCE, undefined, at);
    else if ((await kv.get(SINCE)) === undefined) await kv.set(SINCE, at);
    return (await kv.get<number>(SINCE)) ?? at;
  }

  const claim = async (slug: string, current: FederatedPost | undefined, next: FederatedPost) =>
    kv.cas ? kv.cas(key(slug), current, next) : (await kv.set(key(slug), next), true);

  /** Queues `activity` for the followers (none: nothing is sent, and no key is made), then records it queued. */
  async function send(ctx: Context<void>, slug: string, record: FederatedPost, activity: Activity, followers: boolean): Promise<void> {
    if (followers) await ctx.sendActivity({ identifier: handle }, 'followers', activity, { preferSharedInbox: true });
    await kv.set(key(slug), { hash: record.hash, kind: record.kind, queued: true } satisfies FederatedPost);
    if (followers) log.log(`fediverse: ${activity.id?.href ?? slug} queued for its followers`);
  }

  async function syncLive(ctx: Context<void>, post: Post, first: number, followers: boolean, onlyNew: boolean): Promise<void> {
    const hash = hashOf(await articleOf(ctx, post, handle).toJsonLd({ format: 'expand' }));
    const record = await kv.get<FederatedPost>(key(post.slug));
    if (!record) {
      // Live before the site was on the fediverse: its followers came after it; nothing is sent.
      if (post.dateMillis <= first) {
        await claim(post.slug, undefined, { hash, kind: 'create', queued: true });
        return;
      }
      const next = claimed(hash, 'create');
      if (await claim(post.slug, undefined, next)) await send(ctx, post.slug, next, createOf(ctx, post, handle), followers);
      return;
    }
    if (onlyNew) return;
    if (record.kind === 'delete') {
      // Back after its Delete: servers keep the deletion (Mastodon refuses an object it saw deleted), so nothing is sent.
      await claim(post.slug, record, { hash, kind: 'create', queued: true });
      return;
    }
    if (record.hash !== hash) {
      const next = claimed(hash, 'update');
      if (await claim(post.slug, record, next)) await send(ctx, post.slug, next, updateOf(ctx, post, handle, hash, now()), followers);
      return;
    }
    if (abandoned(record) && (await claim(post.slug, record, claimed(record.hash, record.kind)))) {
      const activity = record.kind === 'create' ? createOf(ctx, post, handle) : updateOf(ctx, post, handle, hash, now());
      await send(ctx, post.slug, record, activity, followers);
    }
  }

  async function syncGone(ctx: Context<void>, slug: string, record: FederatedPost, followers: boolean): Promise<void> {
    if (record.kind === 'delete') {
      if (abandoned(record) && (await claim(slug, record, claimed(record.hash, 'delete'))))
        await send(ctx, slug, record, deleteOf(ctx, slug, handle, record.hash, now()), followers);
      return;
    }
    const next = claimed(record.hash, 'delete');
    if (await claim(slug, record, next)) await send(ctx, slug, next, deleteOf(ctx, slug, handle, record.hash, now()), followers);
  }

  /** Runs `work` for each item; one that fails is logged, and the others go on. Resolves with whether all went through. */
  async function each<T>(items: readonly T[], name: (item: T) => string, work: (item: T) => Promise<void>): Promise<boolean> {
    let complete = true;
    for (const item of items) {
      try {
        await work(item);
      } catch (error) {
        complete = false;
        log.warn(`fediverse: ${name(item)} could not be brought up to date for followers (${describeError(error)}); it is tried again later`);
      }
    }
    return complete;
  }

  return {
    async wentLive(slugs) {
      if (slugs.length === 0) return;
      const [first, followers] = await Promise.all([since(), hasFollowers(kv)]);
      const live = posts(now());
      const ctx = context();
      const wanted = live.filter((post) => slugs.includes(post.slug));
      await each(
        wanted,
        (post) => post.url,
        (post) => syncLive(ctx, post, first, followers, true),
      );
    },
    async deployed() {
      const [first, followers] = await Promise.all([since(), hasFollowers(kv)]);
      const live = posts(now());
      const ctx = context();
      const current = await each(
        live,
        (post) => post.url,
        (post) => syncLive(ctx, post, first, followers, false),
      );
      const liveSlugs = new Set(live.map((post) => post.slug));
      const gone: { slug: string; record: FederatedPost }[] = [];
      for await (const entry of kv.list(FEDERATED)) {
        const slug = String(entry.key[FEDERATED.length]);
        if (!liveSlugs.has(slug)) gone.push({ slug, record: entry.value as FederatedPost });
      }
      const taken = await each(
        gone,
        (item) => `/blog/${item.slug}`,
        (item) => syncGone(ctx, item.slug, item.record, followers),
      );
      return current && taken;
    },
  };
}
