import { InProcessMessageQueue, MemoryKvStore } from '@fedify/fedify';
import { describe, expect, it } from 'vitest';
import type { Post } from '@/lib/content';
import { createSiteFederation, type ActorProfile } from '@/lib/fediverse/federation';
import { fediverseRoute } from '@/lib/fediverse/paths';

const ORIGIN = 'https://blog.example';
const NOW = Date.parse('2026-06-01T12:00:00Z');

function post(slug: string, date: string, tags: string[] = []): Post {
  const dateMillis = Date.parse(date);
  return {
    slug,
    title: `Title of ${slug}`,
    description: `About <${slug}> & more`,
    date,
    tags,
    draft: false,
    newsletter: true,
    source: '',
    body: '',
    dateMillis,
    updatedMillis: undefined,
    published: true,
    path: `/blog/${slug}`,
    url: `${ORIGIN}/blog/${slug}`,
    markdownUrl: `${ORIGIN}/blog/${slug}.md`,
  } as Post;
}

const POSTS = [post('later', '2026-07-01T00:00:00Z'), post('newer', '2026-05-02T00:00:00Z', ['Web Feeds', 'http']), post('older', '2026-04-01T00:00:00Z')];

function federation(profile: ActorProfile = { name: 'Fixture & Co', summary: 'A fixture site.' }) {
  return createSiteFederation({
    kv: new MemoryKvStore(),
    queue: new InProcessMessageQueue(),
    origin: ORIGIN,
    handle: 'blog',
    now: () => NOW,
    posts: (at) => POSTS.filter((entry) => entry.dateMillis <= at),
    profile: () => profile,
    allowPrivateAddress: false,
  });
}

const AS = 'application/activity+json';
const get = async (made: ReturnType<typeof federation>, path: string, accept = AS) => {
  const response = await made.fetch(new Request(`${ORIGIN}${path}`, { headers: { Accept: accept } }), { contextData: undefined });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : undefined,
  };
};

describe('the site on the fediverse', () => {
  it('is found by WebFinger as @blog@host, and its actor is a Person named after the site with two keys and a shared inbox', async () => {
    const made = federation();
    const finger = await get(made, '/.well-known/webfinger?resource=acct:blog@blog.example', 'application/jrd+json');
    expect(finger.status).toBe(200);
    const links = finger.json!.links as { rel: string; type?: string; href: string }[];
    expect(links).toContainEqual(expect.objectContaining({ rel: 'self', type: AS, href: `${ORIGIN}/@blog` }));
    expect((await get(made, '/.well-known/webfinger?resource=acct:someone@blog.example', 'application/jrd+json')).status).toBe(404);

    const actor = await get(made, '/@blog');
    expect(actor.status).toBe(200);
    expect(actor.json).toMatchObject({
      type: 'Person',
      id: `${ORIGIN}/@blog`,
      preferredUsername: 'blog',
      name: 'Fixture & Co',
      summary: 'A fixture site.',
      inbox: `${ORIGIN}/@blog/inbox`,
      outbox: `${ORIGIN}/@blog/outbox`,
      followers: `${ORIGIN}/@blog/followers`,
      endpoints: { sharedInbox: `${ORIGIN}/inbox` },
      url: `${ORIGIN}/`,
    });
    expect(JSON.stringify(actor.json)).toContain('BEGIN PUBLIC KEY');
    expect((actor.json!.assertionMethod as unknown[]).length).toBe(2);
    // The same keys on every ask: made once, kept in the store.
    expect((await get(made, '/@blog')).json!.publicKey).toEqual(actor.json!.publicKey);
    expect((await get(made, '/@other')).status).toBe(404);
  });

  it("shows the author's profile links as Mastodon's profile fields, each a rel=me link, every character escaped", async () => {
    const links = [
      { name: 'Code & <notes>', url: 'https://code.example/mara?tab=a&b=%3Cx%3E' },
      { name: 'Mastodon', url: 'https://social.example/@mara' },
    ];
    const actor = (await get(federation({ name: 'Fixture & Co', summary: 'A fixture site.', links }), '/@blog')).json!;
    expect(actor.attachment).toEqual([
      {
        type: 'PropertyValue',
        name: 'Code & <notes>',
        value:
          '<a href="https://code.example/mara?tab=a&amp;b=%3Cx%3E" rel="me nofollow noopener noreferrer" target="_blank">code.example/mara?tab=a&amp;b=%3Cx%3E</a>',
      },
      {
        type: 'PropertyValue',
        name: 'Mastodon',
        value: '<a href="https://social.example/@mara" rel="me nofollow noopener noreferrer" target="_blank">social.example/@mara</a>',
      },
    ]);
    // No links, no fields.
    expect((await get(federation(), '/@blog')).json!.attachment).toBeUndefined();
  });

  it('answers the LD-JSON profile Mastodon sends, and NodeInfo', async () => {
    const made = federation();
    expect((await get(made, '/@blog', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"')).json?.type).toBe('Person');
    const nodeInfo = await get(made, '/nodeinfo/2.1', 'application/json');
    expect(nodeInfo.json).toMatchObject({ software: { name: 'lectern' }, protocols: ['activitypub'], usage: { localPosts: 2 } });
  });

  it("answers a live post's URL with its Article, and a post not live yet with the 404 of a post that never was", async () => {
    const made = federation();
    const article = await get(made, '/blog/newer');
    expect(article.status).toBe(200);
    expect(article.json).toMatchObject({
      type: 'Article',
      id: `${ORIGIN}/blog/newer`,
      name: 'Title of newer',
      summary: 'About <newer> & more',
      url: `${ORIGIN}/blog/newer`,
      attributedTo: `${ORIGIN}/@blog`,
      published: '2026-05-02T00:00:00Z',
    });
    expect(article.json!.content).toContain('About &lt;newer&gt; &amp; more');
    expect(article.json!.tag).toEqual([
      { type: 'Hashtag', name: '#WebFeeds', href: `${ORIGIN}/tags/web-feeds` },
      { type: 'Hashtag', name: '#http', href: `${ORIGIN}/tags/http` },
    ]);
    const ahead = await get(made, '/blog/later');
    const never = await get(made, '/blog/never');
    expect(ahead.status).toBe(404);
    expect({ ...ahead, json: undefined }).toEqual({ ...never, json: undefined });
  });

  it('lists only the live posts in the outbox, and shows the followers count but not the followers', async () => {
    const made = federation();
    const outbox = await get(made, '/@blog/outbox');
    expect(outbox.json).toMatchObject({ type: 'OrderedCollection', totalItems: 2 });
    const first = await get(made, new URL(outbox.json!.first as string).pathname + new URL(outbox.json!.first as string).search);
    const items = first.json!.orderedItems as { type: string; object: { id: string } }[];
    expect(items.map((item) => [item.type, item.object.id])).toEqual([
      ['Create', `${ORIGIN}/blog/newer`],
      ['Create', `${ORIGIN}/blog/older`],
    ]);
    const followers = await get(made, '/@blog/followers');
    expect(followers.json).toMatchObject({ type: 'OrderedCollection', totalItems: 0 });
    expect(followers.json!.orderedItems).toBeUndefined();
  });
});

describe('which requests are the fediverse', () => {
  it('drops a kept follower on a blocked domain, or with an inbox over plain http, and counts only the others', async () => {
    const kv = new MemoryKvStore();
    const keep = async (id: string, inbox: string, sharedInbox: string | null) => kv.set(['lectern', 'followers', id], { id, inbox, sharedInbox });
    await keep('https://fine.example/u/a', 'https://fine.example/u/a/inbox', 'https://fine.example/inbox');
    await keep('https://social.spam.example/u/b', 'https://social.spam.example/u/b/inbox', null);
    await keep('https://fine.example/u/c', 'https://fine.example/u/c/inbox', 'https://relay.spam.example/inbox');
    await keep('https://plain.example/u/d', 'http://plain.example/u/d/inbox', null);
    const made = createSiteFederation({
      kv,
      queue: new InProcessMessageQueue(),
      origin: ORIGIN,
      handle: 'blog',
      now: () => NOW,
      posts: () => POSTS,
      profile: () => ({ name: 'Fixture & Co', summary: 'A fixture site.' }),
      allowPrivateAddress: false,
      blockedDomains: ['spam.example'],
    });
    expect((await get(made, '/@blog/followers')).json).toMatchObject({ totalItems: 1 });
    const kept = (await Array.fromAsync(kv.list(['lectern', 'followers']))).map((entry) => (entry.value as { id: string }).id);
    expect(kept).toEqual(['https://fine.example/u/a']);
  });

  it("hands Fedify its own URLs, a post's URL only when ActivityStreams is asked for, and a browser on the actor the home page", () => {
    expect(fediverseRoute('GET', '/.well-known/webfinger', undefined)).toBe('fedify');
    expect(fediverseRoute('POST', '/inbox', 'application/activity+json')).toBe('fedify');
    expect(fediverseRoute('POST', '/@blog/inbox', undefined)).toBe('fedify');
    expect(fediverseRoute('GET', '/@blog', 'application/activity+json')).toBe('fedify');
    expect(fediverseRoute('GET', '/@blog', 'text/html,application/xhtml+xml,*/*;q=0.8')).toBe('home');
    expect(fediverseRoute('GET', '/blog/alpha', 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"')).toBe('fedify');
    expect(fediverseRoute('GET', '/blog/alpha', 'text/html')).toBeUndefined();
    expect(fediverseRoute('GET', '/blog/alpha.md', 'application/activity+json')).toBeUndefined();
    expect(fediverseRoute('GET', '/blog', 'application/activity+json')).toBeUndefined();
  });
});
