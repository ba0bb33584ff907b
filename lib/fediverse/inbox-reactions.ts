import type { Context, InboxContext } from '@fedify/fedify';
import { Announce, Article, Create, Delete, Like, Link, Note, Update, type Actor } from '@fedify/fedify/vocab';
import { REPLY_HTML_LIMIT, type IncomingReply, type ReactionKind, type ReactionStore } from './reactions';

/**
 * What the inbox does with what comes back to the site's posts (./federation.ts registers these as
 * its listeners; Fedify has verified each activity's signature before they run). Only a post of
 * the site that is live now counts as ours: a like, repost or reply of anything else (another
 * site's post, a post not live yet) is ignored, as an activity of a type the site does not act on.
 */
export type ReactionInbox = {
  like(ctx: InboxContext<void>, like: Like): Promise<void>;
  announce(ctx: InboxContext<void>, announce: Announce): Promise<void>;
  /** A `Create` of a `Note` or `Article` replying to one of our posts: kept as pending. */
  create(ctx: InboxContext<void>, create: Create): Promise<void>;
  /** An edited reply (only from its sender). */
  update(ctx: InboxContext<void>, update: Update): Promise<void>;
  /** A reply deleted by its sender (the object an ID or a `Tombstone`). */
  delete(ctx: InboxContext<void>, deleted: Delete): Promise<void>;
  /** The `Undo` of a like or repost (only from the account that sent it). */
  undo(ctx: InboxContext<void>, actor: URL | null, undone: Like | Announce): Promise<void>;
};

/** A URL a page may link to: http or https only (a `javascript:` URL from a remote server is no link). */
export function webUrl(value: URL | Link | null | undefined): string | undefined {
  const url = value instanceof Link ? value.href : value;
  return url && (url.protocol === 'https:' || url.protocol === 'http:') ? url.href : undefined;
}

const text = (value: { toString(): string } | null | undefined) => (value ?? '').toString();

/** Who wrote a reply, from their actor: name (else their user name), handle `@name@host`, and profile page. */
function authorOf(actor: Actor) {
  const username = text(actor.preferredUsername);
  const handle = username ? `@${username}@${actor.id!.host}` : actor.id!.href;
  return { name: text(actor.name).trim() || username || handle, handle, url: webUrl(actor.url) ?? actor.id!.href };
}

export function reactionInbox(store: ReactionStore, isLive: (slug: string) => boolean, now: () => number = Date.now): ReactionInbox {
  /** The slug of the live post an ID names (its `Article`'s ID, which is its page's URL), or undefined when it is not ours. */
  function ourPost(ctx: Context<void>, id: URL | null): string | undefined {
    const parsed = ctx.parseUri(id);
    if (parsed?.type !== 'object' || parsed.class !== Article) return undefined;
    const slug = parsed.values.slug;
    return slug !== undefined && isLive(slug) ? slug : undefined;
  }

  async function react(ctx: Context<void>, kind: ReactionKind, activity: Like | Announce): Promise<void> {
    if (!activity.id || !activity.actorId) return;
    const slug = ourPost(ctx, activity.objectId);
    if (!slug) return;
    await store.react(kind, slug, { actor: activity.actorId.href, activity: activity.id.href, at: now() });
  }

  /** The reply an activity carries, when it is a Note or Article written by the activity's sender, on its own server. */
  async function replyIn(ctx: Context<void>, activity: Create | Update): Promise<{ note: Note | Article; actor: URL } | undefined> {
    const actor = activity.actorId;
    if (!actor) return undefined;
    // Fedify fetches an object embedded from another origin from its own server, rather than trust the copy.
    const note = await activity.getObject(ctx);
    if (!(note instanceof Note || note instanceof Article) || !note.id) return undefined;
    if (note.id.origin !== actor.origin || note.attributionId?.href !== actor.href) return undefined;
    return { note, actor };
  }

  async function incoming(ctx: Context<void>, activity: Create | Update, note: Note | Article, slug: string): Promise<IncomingReply | undefined> {
    const sender = await activity.getActor(ctx);
    if (!sender?.id) return undefined;
    return {
      slug,
      note: note.id!.href,
      url: webUrl(note.url) ?? note.id!.href,
      actor: sender.id.href,
      author: authorOf(sender),
      html: text(note.content).slice(0, REPLY_HTML_LIMIT),
      published: note.published?.epochMilliseconds ?? now(),
    };
  }

  return {
    like: (ctx, like) => react(ctx, 'like', like),
    announce: (ctx, announce) => react(ctx, 'announce', announce),
    async create(ctx, create) {
      const found = await replyIn(ctx, create);
      const slug = found && ourPost(ctx, found.note.replyTargetId);
      if (!found || !slug) return;
      const reply = await incoming(ctx, create, found.note, slug);
      if (reply) await store.receiveReply(reply);
    },
    async update(ctx, update) {
      const found = await replyIn(ctx, update);
      if (!found) return;
      const reply = await incoming(ctx, update, found.note, '');
      if (reply) await store.updateReply(reply.note, found.actor.href, { html: reply.html, url: reply.url, author: reply.author });
    },
    async delete(_ctx, deleted) {
      if (!deleted.actorId || !deleted.objectId) return;
      await store.removeReply(deleted.objectId.href, deleted.actorId.href);
    },
    async undo(ctx, actor, undone) {
      if (!actor || undone.actorId?.href !== actor.href) return;
      const slug = ourPost(ctx, undone.objectId);
      if (slug) await store.unreact(undone instanceof Like ? 'like' : 'announce', slug, actor.href);
    },
  };
}
