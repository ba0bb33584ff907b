import { createHash, randomUUID } from 'node:crypto';
import type { KvKey, KvStore } from '@fedify/fedify';
import { KEPT } from './kept';

/** A like or a repost (`Announce`) of a post, one per account: a second one from the same account is the same reaction. */
export type ReactionKind = 'like' | 'announce';
export type KeptReaction = { actor: string; activity: string; at: number };

/**
 * A reply waits for the author (`pending`) until approved or rejected (`npm run fediverse`); a
 * rejected one is kept as rejected, so the same reply sent again does not come back to the list.
 */
export type ReplyStatus = 'pending' | 'approved' | 'rejected';

/** Who wrote a reply, as their server describes them: shown on the page, linked to their profile. */
export type ReplyAuthor = { name: string; handle: string; url: string };

export type KeptReply = {
  /** A short name for the moderation commands, made from `note` (the same reply sent twice has one). */
  id: string;
  slug: string;
  /** The reply's ActivityPub ID. */
  note: string;
  /** Its page on its server. */
  url: string;
  /** The account that sent it (only it may change or delete it). */
  actor: string;
  author: ReplyAuthor;
  /** Its HTML as it came (sanitized where it is shown, as a post's HTML is). */
  html: string;
  published: number;
  received: number;
  status: ReplyStatus;
};

/** What a post's page shows of what came back: counts and the approved replies, oldest first. */
export type PostReactions = { likes: number; reposts: number; replies: KeptReply[] };

/** The most of a reply's HTML that is kept (a Mastodon post is at most a few KiB). */
export const REPLY_HTML_LIMIT = 20_000;

const REACTIONS = KEPT.reactions;
const REPLIES = KEPT.replies;
/** Changes with every write, so every instance (and the server, after a moderation command) sees that something changed. */
const CHANGED = KEPT.reactionsChanged;

const reactionKey = (kind: ReactionKind, slug: string, actor: string): KvKey => [...REACTIONS, slug, kind, actor];
const replyKey = (id: string): KvKey => [...REPLIES, id];

/** The moderation name of a reply: the first 12 hex digits of the SHA-256 of its ID. */
export function replyId(note: string): string {
  return createHash('sha256').update(note).digest('hex').slice(0, 12);
}

/** A reply as it comes, before it is kept. */
export type IncomingReply = Omit<KeptReply, 'id' | 'status' | 'received'>;

/**
 * What came back from the fediverse, kept in Fedify's key–value store (SQLite or Redis, whichever
 * the site's federation runs on), under keys of lectern's own: likes and reposts by post and
 * account, replies by their moderation name. Every write changes one stamp (`changed`) that the
 * server looks at to refresh what its pages show.
 */
export type ReactionStore = {
  /** Keeps a like or repost; false when this account's was kept already. */
  react(kind: ReactionKind, slug: string, reaction: KeptReaction): Promise<boolean>;
  /** Forgets an account's like or repost of a post (its `Undo`); false when none was kept. */
  unreact(kind: ReactionKind, slug: string, actor: string): Promise<boolean>;
  /** Keeps a new reply as pending; a reply kept already (the same activity twice) is left as it is (`known`). */
  receiveReply(reply: IncomingReply): Promise<'kept' | 'known'>;
  /**
   * A reply edited by its sender (`Update`): its text and author are replaced. An approved reply whose
   * text changed is pending again (the author approved the words it had); a rejected one stays rejected.
   * Undefined when no reply of this ID from this account is kept.
   */
  updateReply(note: string, actor: string, changed: Pick<IncomingReply, 'html' | 'url' | 'author'>): Promise<KeptReply | undefined>;
  /** Forgets a reply its sender deleted; false when no reply of this ID from this account is kept. */
  removeReply(note: string, actor: string): Promise<boolean>;
  /** The replies waiting for the author, oldest first. */
  pending(): Promise<KeptReply[]>;
  /** Approves or rejects a reply by its moderation name; undefined when there is none. */
  moderate(id: string, status: 'approved' | 'rejected'): Promise<KeptReply | undefined>;
  /** What every post's page shows, by slug (posts with nothing kept are absent). */
  snapshot(): Promise<Map<string, PostReactions>>;
  /** The stamp of the last write (undefined before the first). */
  changed(): Promise<string | undefined>;
};

export function reactionStore(kv: KvStore, now: () => number = Date.now): ReactionStore {
  const touch = () => kv.set(CHANGED, `${now()}-${randomUUID()}`);

  async function replies(): Promise<KeptReply[]> {
    const all: KeptReply[] = [];
    for await (const entry of kv.list(REPLIES)) all.push(entry.value as KeptReply);
    return all.sort((a, b) => a.published - b.published || a.received - b.received);
  }

  async function ownReply(note: string, actor: string): Promise<KeptReply | undefined> {
    const kept = await kv.get<KeptReply>(replyKey(replyId(note)));
    return kept && kept.note === note && kept.actor === actor ? kept : undefined;
  }

  return {
    async react(kind, slug, reaction) {
      const key = reactionKey(kind, slug, reaction.actor);
      if (await kv.get(key)) return false;
      await kv.set(key, reaction);
      await touch();
      return true;
    },
    async unreact(kind, slug, actor) {
      const key = reactionKey(kind, slug, actor);
      if (!(await kv.get(key))) return false;
      await kv.delete(key);
      await touch();
      return true;
    },
    async receiveReply(reply) {
      const id = replyId(reply.note);
      if (await kv.get(replyKey(id))) return 'known';
      const kept: KeptReply = { ...reply, html: reply.html.slice(0, REPLY_HTML_LIMIT), id, status: 'pending', received: now() };
      await kv.set(replyKey(id), kept);
      await touch();
      return 'kept';
    },
    async updateReply(note, actor, changed) {
      const kept = await ownReply(note, actor);
      if (!kept) return undefined;
      const html = changed.html.slice(0, REPLY_HTML_LIMIT);
      const status: ReplyStatus = kept.status === 'approved' && html !== kept.html ? 'pending' : kept.status;
      const updated: KeptReply = { ...kept, ...changed, html, status };
      await kv.set(replyKey(kept.id), updated);
      await touch();
      return updated;
    },
    async removeReply(note, actor) {
      const kept = await ownReply(note, actor);
      if (!kept) return false;
      await kv.delete(replyKey(kept.id));
      await touch();
      return true;
    },
    async pending() {
      return (await replies()).filter((reply) => reply.status === 'pending');
    },
    async moderate(id, status) {
      const kept = await kv.get<KeptReply>(replyKey(id));
      if (!kept) return undefined;
      const moderated: KeptReply = { ...kept, status };
      await kv.set(replyKey(id), moderated);
      await touch();
      return moderated;
    },
    async snapshot() {
      const posts = new Map<string, PostReactions>();
      const of = (slug: string) => {
        let post = posts.get(slug);
        if (!post) posts.set(slug, (post = { likes: 0, reposts: 0, replies: [] }));
        return post;
      };
      for await (const entry of kv.list(REACTIONS)) {
        const [, , slug, kind] = entry.key;
        if (typeof slug !== 'string') continue;
        if (kind === 'like') of(slug).likes += 1;
        else if (kind === 'announce') of(slug).reposts += 1;
      }
      for (const reply of await replies()) if (reply.status === 'approved') of(reply.slug).replies.push(reply);
      return posts;
    },
    changed: () => kv.get<string>(CHANGED),
  };
}
