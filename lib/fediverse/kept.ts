import type { KvStore } from '@fedify/fedify';

/**
 * What lectern keeps in the fediverse's store beside Fedify's own entries, by key. Read without
 * Fedify (this file imports only its types), so the server can tell whether the site is known on
 * the fediverse before it loads Fedify (./site.ts).
 */
export const KEPT = {
  /** One entry per follower: its actor ID, inbox and shared inbox. */
  followers: ['lectern', 'followers'],
  /** The actor's key pairs, made the first time a server reads the actor. */
  keys: ['lectern', 'keys'],
  /** Likes and reposts of the posts, by post, kind and account (./reactions.ts). */
  reactions: ['lectern', 'reactions'],
  /** Replies to the posts, by their moderation name (./reactions.ts). */
  replies: ['lectern', 'replies'],
  /** A stamp that changes with every write of the two above, so every instance sees that something changed. */
  reactionsChanged: ['lectern', 'reactions-changed'],
  /** Per build, on a host without lectern's server: its deploy's changes were sent (./platform.ts). */
  deployed: ['lectern', 'deployed'],
} as const satisfies Record<string, readonly [string, string]>;

/** Whether anyone follows the site (a delivery to no one asks for nothing, the keys included). */
export async function hasFollowers(kv: KvStore): Promise<boolean> {
  for await (const _entry of kv.list(KEPT.followers)) return true;
  return false;
}

/**
 * Whether the site is known on the fediverse: its keys are made the first time a server reads its
 * actor (a follow always starts there), so a store without them has no follower, no queued
 * activity, nothing to deliver.
 */
export async function isKnown(kv: KvStore): Promise<boolean> {
  return (await kv.get(KEPT.keys)) !== undefined;
}
