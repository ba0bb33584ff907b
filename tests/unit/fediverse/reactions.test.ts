import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InProcessMessageQueue, MemoryKvStore, type KvStore } from '@fedify/fedify';
import { Announce, Create, Delete, Like, Note, Person, Tombstone, Update } from '@fedify/fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizedHtml } from '@/lib/content/sanitize';
import { createSiteFederation } from '@/lib/fediverse/federation';
import { reactionInbox } from '@/lib/fediverse/inbox-reactions';
import { parseFediverseCommand, replyText, runFediverseCommand } from '@/lib/fediverse/moderation';
import { reactionStore, replyId, type IncomingReply } from '@/lib/fediverse/reactions';
import { EMPTY_REACTIONS_HTML, REACTIONS_ELEMENT } from '@/lib/fediverse/reactions-marker';
import { reactionPages, reactionsHtml } from '@/lib/fediverse/reactions-page';
import { redisKvStore } from '@/lib/fediverse/redis-stores';
import { sqliteFediverseStores } from '@/lib/fediverse/stores';
import { failFastRedis, redisEvaluator, type FailFastRedis } from '@/lib/redis/client';
import { testRedisUrl } from '../../support/redis';

const ORIGIN = 'https://blog.example';
const PEER = 'https://social.example';
const READER = `${PEER}/users/reader`;

function reply(note: string, html = '<p>Nice post</p>', slug = 'alpha'): IncomingReply {
  return {
    slug,
    note,
    url: `${note}/page`,
    actor: READER,
    author: { name: 'A reader', handle: '@reader@social.example', url: `${PEER}/@reader` },
    html,
    published: Date.parse('2026-06-01T12:00:00Z'),
  };
}

// The same logic on each store the server may run on: Fedify's own in memory, SQLite (DATA_DIR) and Redis.
let redis: FailFastRedis;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-reactions-'));
const namespace = `test-reactions-${crypto.randomUUID()}:`;
beforeAll(() => {
  redis = failFastRedis(testRedisUrl(0), { commandTimeoutMs: 2000 });
});
afterAll(async () => {
  const keys = await redis.run((client) => client.keys(`${namespace}*`));
  if (keys.length > 0) await redis.run((client) => client.del(keys));
  await redis.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const stores: [string, () => KvStore][] = [
  ['in memory', () => new MemoryKvStore()],
  ['on SQLite', () => sqliteFediverseStores(fs.mkdtempSync(path.join(tmp, 'db-'))).kv],
  ['on Redis', () => redisKvStore(redisEvaluator({ kind: 'redis', redis }), `${namespace}${crypto.randomUUID()}:`)],
];

describe.each(stores)('what comes back, kept %s', (_name, kvStore) => {
  it('counts one like and one repost per account and post, and forgets them on their Undo', async () => {
    const store = reactionStore(kvStore());
    expect(await store.changed()).toBeUndefined();
    expect(await store.react('like', 'alpha', { actor: READER, activity: `${READER}#like/1`, at: 1 })).toBe(true);
    const stamp = await store.changed();
    expect(stamp).toBeDefined();
    // The same like sent again, or a second like from the same account: one like.
    expect(await store.react('like', 'alpha', { actor: READER, activity: `${READER}#like/1`, at: 2 })).toBe(false);
    expect(await store.react('like', 'alpha', { actor: READER, activity: `${READER}#like/2`, at: 3 })).toBe(false);
    await store.react('like', 'alpha', { actor: `${PEER}/users/other`, activity: `${PEER}/users/other#like`, at: 4 });
    await store.react('announce', 'alpha', { actor: READER, activity: `${READER}#boost`, at: 5 });
    await store.react('like', 'beta', { actor: READER, activity: `${READER}#like/3`, at: 6 });
    expect(await store.changed()).not.toBe(stamp);
    let snapshot = await store.snapshot();
    expect(snapshot.get('alpha')).toEqual({ likes: 2, reposts: 1, replies: [] });
    expect(snapshot.get('beta')).toEqual({ likes: 1, reposts: 0, replies: [] });

    expect(await store.unreact('like', 'alpha', READER)).toBe(true);
    expect(await store.unreact('like', 'alpha', READER)).toBe(false);
    snapshot = await store.snapshot();
    expect(snapshot.get('alpha')).toEqual({ likes: 1, reposts: 1, replies: [] });
  });

  it('keeps a reply pending, off the page, until it is approved; a rejected one stays off, even sent again', async () => {
    // A clock that moves a second a call: the two replies are received in order, never in the same millisecond.
    let time = 0;
    const store = reactionStore(kvStore(), () => (time += 1_000));
    const first = `${PEER}/notes/1`;
    const second = `${PEER}/notes/2`;
    expect(await store.receiveReply(reply(first))).toBe('kept');
    expect(await store.receiveReply(reply(first))).toBe('known');
    await store.receiveReply(reply(second, '<p>Spam</p>'));
    expect((await store.pending()).map((kept) => kept.id)).toEqual([replyId(first), replyId(second)]);
    expect((await store.snapshot()).get('alpha')).toBeUndefined();

    expect(await store.moderate('nothing-here', 'approved')).toBeUndefined();
    expect((await store.moderate(replyId(first), 'approved'))?.status).toBe('approved');
    expect((await store.moderate(replyId(second), 'rejected'))?.status).toBe('rejected');
    expect(await store.pending()).toEqual([]);
    expect((await store.snapshot()).get('alpha')?.replies.map((kept) => kept.note)).toEqual([first]);

    // Sent again, the rejected reply is not back in the list, and the approved one stays approved.
    expect(await store.receiveReply(reply(second, '<p>Spam</p>'))).toBe('known');
    expect(await store.receiveReply(reply(first))).toBe('known');
    expect(await store.pending()).toEqual([]);
    expect((await store.snapshot()).get('alpha')?.replies).toHaveLength(1);
  });

  it('takes an edit and a delete of a reply only from its sender; an approved reply whose text changed waits for approval again', async () => {
    const store = reactionStore(kvStore());
    const note = `${PEER}/notes/3`;
    await store.receiveReply(reply(note, '<p>First words</p>'));
    await store.moderate(replyId(note), 'approved');
    const author = reply(note).author;

    expect(await store.updateReply(note, `${PEER}/users/other`, { html: '<p>Taken over</p>', url: note, author })).toBeUndefined();
    // An edit that keeps the text (a changed name, say) keeps the approval.
    expect((await store.updateReply(note, READER, { html: '<p>First words</p>', url: note, author: { ...author, name: 'Renamed' } }))?.status).toBe('approved');
    const edited = await store.updateReply(note, READER, { html: '<p>Other words</p>', url: note, author });
    expect(edited).toMatchObject({ status: 'pending', html: '<p>Other words</p>', slug: 'alpha' });
    expect((await store.snapshot()).get('alpha')).toBeUndefined();

    expect(await store.removeReply(note, `${PEER}/users/other`)).toBe(false);
    expect(await store.pending()).toHaveLength(1);
    expect(await store.removeReply(note, READER)).toBe(true);
    expect(await store.pending()).toEqual([]);
  });
});

describe("the inbox's listeners for what comes back", () => {
  const NOW = Date.parse('2026-06-01T12:00:00Z');
  const live = new Set(['alpha']);
  function setUp() {
    const kv = new MemoryKvStore();
    const federation = createSiteFederation({
      kv,
      queue: new InProcessMessageQueue(),
      origin: ORIGIN,
      handle: 'blog',
      now: () => NOW,
      posts: () => [],
      profile: () => ({ name: 'Blog', summary: '' }),
      allowPrivateAddress: false,
    });
    // The listeners get an inbox context; the parts they use are the context's.
    const ctx = federation.createContext(new URL(ORIGIN)) as never;
    const store = reactionStore(kv);
    return {
      ctx,
      store,
      inbox: reactionInbox(
        store,
        (slug) => live.has(slug),
        () => NOW,
      ),
    };
  }
  const reader = new Person({ id: new URL(READER), preferredUsername: 'reader', name: 'A <b>reader</b>', url: new URL(`${PEER}/@reader`) });
  const note = (id: string, inReplyTo: string, extra: Partial<ConstructorParameters<typeof Note>[0]> = {}) =>
    new Note({
      id: new URL(id),
      attribution: new URL(READER),
      replyTarget: new URL(inReplyTo),
      content: '<p>Hello <script>alert(1)</script></p>',
      published: Temporal.Instant.fromEpochMilliseconds(NOW),
      ...extra,
    });

  it("keeps a like and a repost of a live post, and not of another site's post or a post not live yet", async () => {
    const { ctx, store, inbox } = setUp();
    await inbox.like(ctx, new Like({ id: new URL(`${READER}#l1`), actor: new URL(READER), object: new URL(`${ORIGIN}/blog/alpha`) }));
    await inbox.like(ctx, new Like({ id: new URL(`${READER}#l2`), actor: new URL(READER), object: new URL(`${ORIGIN}/blog/not-yet`) }));
    await inbox.like(ctx, new Like({ id: new URL(`${READER}#l3`), actor: new URL(READER), object: new URL('https://elsewhere.example/blog/alpha') }));
    await inbox.announce(ctx, new Announce({ id: new URL(`${READER}#a1`), actor: new URL(READER), object: new URL(`${ORIGIN}/blog/alpha`) }));
    const snapshot = await store.snapshot();
    expect([...snapshot.keys()]).toEqual(['alpha']);
    expect(snapshot.get('alpha')).toMatchObject({ likes: 1, reposts: 1 });

    // An Undo from someone else leaves the like; its sender's takes it back.
    const like = new Like({ id: new URL(`${READER}#l1`), actor: new URL(READER), object: new URL(`${ORIGIN}/blog/alpha`) });
    await inbox.undo(ctx, new URL(`${PEER}/users/other`), like);
    expect((await store.snapshot()).get('alpha')?.likes).toBe(1);
    await inbox.undo(ctx, new URL(READER), like);
    expect((await store.snapshot()).get('alpha')).toMatchObject({ likes: 0, reposts: 1 });
  });

  it('keeps a reply to a live post as pending, with its author, and only when its sender wrote it', async () => {
    const { ctx, store, inbox } = setUp();
    const create = (object: Note, id = `${object.id!.href}/activity`) => new Create({ id: new URL(id), actor: reader, object });
    await inbox.create(ctx, create(note(`${PEER}/notes/1`, `${ORIGIN}/blog/alpha`)));
    // Not to one of our live posts; written by someone else; a note of another server.
    await inbox.create(ctx, create(note(`${PEER}/notes/2`, `${ORIGIN}/blog/not-yet`)));
    await inbox.create(ctx, create(note(`${PEER}/notes/3`, `${ORIGIN}/blog/alpha`, { attribution: new URL(`${PEER}/users/other`) })));
    await inbox.create(ctx, create(note(`${PEER}/notes/4`, `${ORIGIN}/blog/alpha`, { url: new URL('javascript:alert(1)') })));
    const pending = await store.pending();
    expect(pending.map((kept) => kept.note)).toEqual([`${PEER}/notes/1`, `${PEER}/notes/4`]);
    expect(pending[0]).toMatchObject({
      slug: 'alpha',
      actor: READER,
      author: { name: 'A <b>reader</b>', handle: '@reader@social.example', url: `${PEER}/@reader` },
      status: 'pending',
    });
    // A link that is not http(s) is not kept: the reply links to its ID.
    expect(pending[1]!.url).toBe(`${PEER}/notes/4`);

    // Its sender edits it, then deletes it (a Tombstone); a Delete from anyone else does nothing.
    await inbox.update(
      ctx,
      new Update({ id: new URL(`${PEER}/notes/1#edit`), actor: reader, object: note(`${PEER}/notes/1`, `${ORIGIN}/blog/alpha`, { content: '<p>Edited</p>' }) }),
    );
    expect((await store.pending())[0]!.html).toBe('<p>Edited</p>');
    await inbox.delete(ctx, new Delete({ id: new URL(`${PEER}/x#delete`), actor: new URL(`${PEER}/users/other`), object: new URL(`${PEER}/notes/1`) }));
    expect(await store.pending()).toHaveLength(2);
    await inbox.delete(
      ctx,
      new Delete({ id: new URL(`${PEER}/notes/1#delete`), actor: new URL(READER), object: new Tombstone({ id: new URL(`${PEER}/notes/1`) }) }),
    );
    expect((await store.pending()).map((kept) => kept.note)).toEqual([`${PEER}/notes/4`]);
  });
});

describe("what a post's page shows", () => {
  const approved = (html: string) => ({
    ...reply(`${PEER}/notes/9`, html),
    author: { name: '<img src=x onerror=alert(1)>Eve', handle: '@eve@social.example', url: 'https://social.example/@eve" onclick="x' },
    id: 'abc',
    status: 'approved' as const,
    received: 0,
  });

  it('shows the counts and each approved reply, its text sanitized as a post is and every remote value escaped', () => {
    const html = reactionsHtml(
      { likes: 1, reposts: 2, replies: [approved('<p onclick="steal()">Thanks! <script>alert(1)</script><a href="javascript:alert(1)">x</a></p>')] },
      'UTC',
      sanitizedHtml,
    );
    expect(html).toContain('1 like · 2 reposts');
    expect(html).toContain('<p>Thanks! <a>x</a></p>');
    // No element or attribute of the remote server's making: what it sent is text, or gone.
    expect(html).not.toMatch(/<script|<img|\bon\w+="|href="javascript:/i);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;Eve');
    expect(html).toContain('href="https://social.example/@eve&quot; onclick=&quot;x"');
    expect(html).toContain(`href="${PEER}/notes/9/page"`);
    expect(html).toContain('June 1, 2026');
    expect(reactionsHtml(undefined, 'UTC', sanitizedHtml)).toBe('');
    expect(reactionsHtml({ likes: 0, reposts: 0, replies: [] }, 'UTC', sanitizedHtml)).toBe('');
  });

  it("is an element React renders empty and leaves as the server filled it; only a post page's is filled", async () => {
    expect(renderToStaticMarkup(createElement('section', { ...REACTIONS_ELEMENT, dangerouslySetInnerHTML: { __html: '' } }))).toBe(EMPTY_REACTIONS_HTML);
    const store = reactionStore(new MemoryKvStore());
    await store.react('like', 'alpha', { actor: READER, activity: `${READER}#l`, at: 1 });
    const remade: string[] = [];
    const pages = reactionPages({ store, remake: async (made) => void remade.push(made), timeZone: () => 'UTC', everyMs: 20 });
    await pages.part.start();
    try {
      const page = Buffer.from(`<main><article>text</article>${EMPTY_REACTIONS_HTML}</main>`);
      expect(pages.fill('/blog/alpha', page).toString()).toContain(
        'data-fediverse="reactions"><h2>On the fediverse</h2><p class="reaction-counts">1 like · 0 reposts</p></section>',
      );
      expect(pages.fill('/blog/beta', page).toString()).toBe(page.toString());
      expect(pages.fill('/tags/alpha', page).toString()).toBe(page.toString());
      expect(remade).toEqual([]);

      // A change in the store (another instance, the moderation command) remakes that post's page.
      await store.react('announce', 'beta', { actor: READER, activity: `${READER}#a`, at: 2 });
      await expect.poll(() => remade).toEqual(['/blog/beta']);
      expect(pages.fill('/blog/beta', page).toString()).toContain('0 likes · 1 repost');

      // An approved reply: shown, sanitized (the sanitizer loaded for it).
      await store.receiveReply(reply(`${PEER}/notes/5`, '<p>Kind words<script>alert(1)</script></p>'));
      await store.moderate(replyId(`${PEER}/notes/5`), 'approved');
      await expect.poll(() => remade).toEqual(['/blog/beta', '/blog/alpha']);
      const filled = pages.fill('/blog/alpha', page).toString();
      expect(filled).toContain('<div class="reply-text"><p>Kind words</p></div>');
      expect(filled).not.toContain('<script');
    } finally {
      await pages.part.stop();
    }
  });
});

describe('npm run fediverse', () => {
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) } };
  };

  it('reads its commands, and refuses anything else', () => {
    expect(parseFediverseCommand(['replies'])).toEqual({ ok: true, command: { name: 'replies' } });
    expect(parseFediverseCommand(['approve', 'abc'])).toEqual({ ok: true, command: { name: 'approve', id: 'abc' } });
    expect(parseFediverseCommand(['reject', 'abc'])).toEqual({ ok: true, command: { name: 'reject', id: 'abc' } });
    expect(parseFediverseCommand(['approve'])).toMatchObject({ ok: false });
    expect(parseFediverseCommand([])).toEqual({ ok: false, error: 'no command given' });
  });

  it('lists the pending replies as plain text, approves one, and answers 1 for an id it does not know', async () => {
    const store = reactionStore(new MemoryKvStore());
    const run = io();
    expect(await runFediverseCommand({ name: 'replies' }, store, run.io)).toBe(0);
    expect(run.out).toEqual(['No reply waits for approval.']);

    await store.receiveReply(reply(`${PEER}/notes/1`, '<p>Hello <b>there</b> <script>x</script><a href="https://x.example">@blog</a></p><p>Second</p>'));
    const listed = io();
    expect(await runFediverseCommand({ name: 'replies' }, store, listed.io)).toBe(0);
    const text = listed.out.join('\n');
    expect(text).toContain(replyId(`${PEER}/notes/1`));
    expect(text).toContain('/blog/alpha');
    expect(text).toContain('A reader (@reader@social.example, https://social.example/@reader)');
    expect(text).toContain('2026-06-01 12:00 UTC');
    expect(text).toContain('| Hello there @blog');
    expect(text).not.toMatch(/<b>|<p>|https:\/\/x\.example/);
    expect(replyText('<p>a</p><p>b</p>')).toBe('a\n\nb');

    const approving = io();
    expect(await runFediverseCommand({ name: 'approve', id: replyId(`${PEER}/notes/1`) }, store, approving.io)).toBe(0);
    expect(approving.out.join('')).toContain('Approved');
    expect(await store.pending()).toEqual([]);
    const unknown = io();
    expect(await runFediverseCommand({ name: 'reject', id: 'nope' }, store, unknown.io)).toBe(1);
    expect(unknown.err.join('')).toContain('No reply has the id "nope"');
  });
});
