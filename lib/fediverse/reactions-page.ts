import { contentPaths } from '../content/urls';
import { longDate } from '../content/dates';
import { escapeHtml } from '../http/html';
import { describeError } from '../log';
import type { Part } from '../runtime/runtime';
import { EMPTY_REACTIONS_HTML } from './reactions-marker';
import type { PostReactions, ReactionStore } from './reactions';

/** How often the server looks for a change (a like came to another instance, a reply was approved by the command). */
export const REACTIONS_LOOK_MS = 1_000;

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
/** Links to other servers: followed by no search engine's credit, and marked as what readers wrote. */
const REL = 'nofollow ugc noopener';

/**
 * The content of a post's reactions element: the counts of likes and reposts, and each approved
 * reply (its author's name linked to their profile, their handle, its date linked to the reply on
 * its server, and its text sanitized by `sanitize`: lib/content/sanitize.ts, as a post's HTML is).
 * Empty when nothing came back. Every value from a remote server is escaped or sanitized here.
 */
export function reactionsHtml(reactions: PostReactions | undefined, timeZone: string, sanitize: (html: string) => string): string {
  if (!reactions || reactions.likes + reactions.reposts + reactions.replies.length === 0) return '';
  const replies = reactions.replies.map(
    (reply) =>
      `<li class="reply"><p class="reply-meta"><a href="${escapeHtml(reply.author.url)}" rel="${REL}">${escapeHtml(reply.author.name)}</a> ` +
      `<span class="reply-handle">${escapeHtml(reply.author.handle)}</span> · ` +
      `<a href="${escapeHtml(reply.url)}" rel="${REL}"><time datetime="${new Date(reply.published).toISOString()}">${escapeHtml(longDate(reply.published, timeZone))}</time></a></p>` +
      `<div class="reply-text">${sanitize(reply.html)}</div></li>`,
  );
  return (
    `<h2>On the fediverse</h2><p class="reaction-counts">${count(reactions.likes, 'like', 'likes')} · ${count(reactions.reposts, 'repost', 'reposts')}</p>` +
    (replies.length > 0 ? `<ol class="replies">${replies.join('')}</ol>` : '')
  );
}

/** What sanitizes the replies before any is approved: there are none to sanitize. */
const noReplies = (): string => {
  throw new Error('no sanitizer loaded for a reply');
};

/** The slug of a post's page path, or undefined for any other path. */
function slugOf(path: string): string | undefined {
  const prefix = contentPaths.post('');
  const slug = path.startsWith(prefix) ? path.slice(prefix.length) : '';
  return /^[^/.]+$/.test(slug) ? slug : undefined;
}

export type ReactionPagesOptions = {
  store: ReactionStore;
  /** Makes a page anew in lectern's read cache (its kept copy is replaced): a post's reactions changed. */
  remake: (path: string) => Promise<unknown>;
  /** The site's time zone (content/site.yaml), for a reply's date. */
  timeZone: () => string;
  everyMs?: number;
  log?: Pick<Console, 'warn'>;
};

export type ReactionPages = {
  /** A rendered page's HTML with its reactions element filled from the copy in memory (unchanged for any other page). */
  fill: (path: string, body: Buffer) => Buffer;
  /** Loads the copy in memory, then looks for changes every `everyMs` and remakes the pages whose reactions changed. */
  part: Part;
};

/**
 * What post pages show of the fediverse, on lectern's server: a copy in memory of every post's
 * reactions (./reactions.ts), put into each post page as it is rendered (`fill`, by the read
 * cache), and refreshed from the store when its stamp changes, whichever instance or command made
 * the change; each page whose reactions changed is made anew at once, so its readers see the change
 * within a look. Without FEDIVERSE_HANDLE none of this runs and the element stays empty.
 */
export function reactionPages(options: ReactionPagesOptions): ReactionPages {
  const { store, remake } = options;
  const log = options.log ?? console;
  const everyMs = options.everyMs ?? REACTIONS_LOOK_MS;
  /** The reactions element's content of each post that has any, by slug. */
  let shown = new Map<string, string>();
  let stamp: string | undefined;
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let looking: Promise<void> | undefined;
  let failures = 0;
  /** The sanitizer (unified and parse5), loaded once a reply is approved: an idle server does without it. */
  let sanitize: ((html: string) => string) | undefined;

  /** Reads the store when its stamp changed; `remaking`: the pages whose reactions changed are made anew (not at the first load: no page is kept yet). */
  async function look(remaking: boolean): Promise<void> {
    const current = await store.changed();
    if (current === stamp) return;
    const snapshot = await store.snapshot();
    if (!sanitize && [...snapshot.values()].some((reactions) => reactions.replies.length > 0)) sanitize = (await import('../content/sanitize')).sanitizedHtml;
    const next = new Map<string, string>();
    for (const [slug, reactions] of snapshot) {
      const html = reactionsHtml(reactions, options.timeZone(), sanitize ?? noReplies);
      if (html) next.set(slug, html);
    }
    const changed = [...new Set([...shown.keys(), ...next.keys()])].filter((slug) => shown.get(slug) !== next.get(slug));
    shown = next;
    stamp = current;
    if (remaking) for (const slug of changed) await remake(contentPaths.post(slug));
  }

  function schedule(): void {
    timer = setTimeout(() => {
      looking = look(true)
        .then(
          () => {
            failures = 0;
          },
          (error: unknown) => {
            failures += 1;
            if (failures === 1 || failures % 60 === 0) log.warn(`fediverse: the reactions could not be read (${describeError(error)}); looking again`);
          },
        )
        .finally(() => {
          looking = undefined;
          if (running) schedule();
        });
    }, everyMs);
  }

  return {
    fill(path, body) {
      const slug = slugOf(path);
      const html = slug === undefined ? undefined : shown.get(slug);
      if (!html) return body;
      const page = body.toString('utf8');
      const at = page.indexOf(EMPTY_REACTIONS_HTML);
      if (at === -1) return body;
      const open = EMPTY_REACTIONS_HTML.slice(0, EMPTY_REACTIONS_HTML.indexOf('>') + 1);
      return Buffer.from(`${page.slice(0, at)}${open}${html}</section>${page.slice(at + EMPTY_REACTIONS_HTML.length)}`);
    },
    part: {
      name: 'fediverse reactions',
      async start() {
        running = true;
        await look(false).catch((error: unknown) => log.warn(`fediverse: the reactions could not be read (${describeError(error)}); looking again`));
        schedule();
      },
      async stop() {
        running = false;
        clearTimeout(timer);
        await looking;
      },
    },
  };
}
