import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InProcessMessageQueue, MemoryKvStore, type KvStore } from '@fedify/fedify';
import { afterEach, describe, expect, it } from 'vitest';
import { siteFediverse } from '@/lib/fediverse';
import { INBOX_BODY_LIMIT } from '@/lib/fediverse/paths';
import { memoryLimiter, type Limiter } from '@/lib/limits/limiter';
import { startFediversePeer, type FediversePeer } from '../../support/fediverse-peer';

/** The inbox's limits on a limiter of the test's own, the client address from the socket. */
const limits = () => {
  const limiter = memoryLimiter({ windowScale: 1 });
  return { limiter: () => limiter, deployment: { trustProxy: 0, clientIpHeader: undefined, platform: false } };
};

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** The fediverse's reads behind a bare HTTP server, on in-memory stores; what it leaves to the rest answers 299. */
async function serve(blockedDomains: readonly string[] = []) {
  const fediverse = siteFediverse({
    blockedDomains,
    stores: { kv: new MemoryKvStore(), queue: new InProcessMessageQueue(), close: () => undefined },
    origin: 'https://blog.example',
    handle: 'blog',
    allowPrivateAddress: false,
    now: () => Date.now(),
    posts: () => [],
    profile: () => ({ name: 'A site', summary: 'About it.' }),
    log: { warn: () => undefined, log: () => undefined },
    ...limits(),
  });
  server = createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?', 1)[0]!;
    const answer = fediverse.reads(req, pathname);
    if (answer === undefined || answer === 'home') {
      res.writeHead(299, { 'Content-Type': 'text/plain' });
      res.end(answer ?? 'not the fediverse');
      return;
    }
    void answer.then(async (response) => {
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

describe("the fediverse's reads", () => {
  it('answers on the site URL whatever host it is reached on: the actor and WebFinger name https://blog.example', async () => {
    const base = await serve();
    const actor = (await (await fetch(`${base}/@blog`, { headers: { Accept: 'application/activity+json' } })).json()) as { id: string };
    expect(actor.id).toBe('https://blog.example/@blog');
    const finger = await fetch(`${base}/.well-known/webfinger?resource=acct:blog@blog.example`);
    expect(finger.status).toBe(200);
  });

  it('refuses an unsigned inbox post with 401, and a body over the limit with 413 before reading it all', async () => {
    const base = await serve();
    const follow = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      type: 'Follow',
      id: 'https://remote.example/f/1',
      actor: 'https://remote.example/u/a',
      object: 'https://blog.example/@blog',
    });
    const unsigned = await fetch(`${base}/@blog/inbox`, { method: 'POST', headers: { 'Content-Type': 'application/activity+json' }, body: follow });
    expect(unsigned.status).toBe(401);
    const large = await fetch(`${base}/inbox`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/activity+json',
        Signature: 'keyId="https://remote.example/u/a#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="c2ln"',
      },
      body: 'x'.repeat(INBOX_BODY_LIMIT + 1),
    });
    expect(large.status).toBe(413);
    expect(large.headers.get('connection')).toBe('close');
  });

  it("refuses a post signed by a blocked server's key with 403 problem details, without asking its server for the key", async () => {
    const base = await serve(['spam.example']);
    const refused = await fetch(`${base}/inbox`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/activity+json',
        Signature: 'keyId="https://mastodon.spam.example/users/a#main-key",algorithm="rsa-sha256",headers="(request-target) host date",signature="c2ln"',
      },
      body: JSON.stringify({ type: 'Follow', actor: 'https://mastodon.spam.example/users/a', object: 'https://blog.example/@blog' }),
    });
    // Fedify would answer 401 once the key could not be fetched; the guard answers before that.
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(((await refused.json()) as { title: string }).title).toBe('Server blocked');
  });

  it('gives ActivityStreams documents the read caching and a Vary on Accept (the Vary of the page where the URL is also one)', async () => {
    const base = await serve();
    const actor = await fetch(`${base}/@blog`, { headers: { Accept: 'application/activity+json' } });
    expect(actor.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30, stale-while-revalidate=30');
    expect(actor.headers.get('vary')).toBe('rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch, Accept, Accept-Encoding');
    const finger = await fetch(`${base}/.well-known/webfinger?resource=acct:blog@blog.example`);
    expect(finger.headers.get('cache-control')).toMatch(/^public, max-age=30/);
    expect(finger.headers.get('vary')).toBe('Accept');
    const missing = await fetch(`${base}/blog/some-post`, { headers: { Accept: 'application/activity+json' } });
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(missing.headers.get('vary')).toMatch(/Accept/);
  });

  it('answers a post that is not live, and an unknown actor, with 404; leaves pages and browsers on the actor to the rest', async () => {
    const base = await serve();
    expect((await fetch(`${base}/blog/some-post`, { headers: { Accept: 'application/activity+json' } })).status).toBe(404);
    expect((await fetch(`${base}/@someone`, { headers: { Accept: 'application/activity+json' } })).status).toBe(404);
    expect((await fetch(`${base}/blog/some-post`)).status).toBe(299);
    const browser = await fetch(`${base}/@blog`, { headers: { Accept: 'text/html' } });
    expect(await browser.text()).toBe('home');
  });
});

describe('delivering posts that went live', () => {
  it('asks for nothing, not even the keys, while no one follows; queues the Create of the next post once someone does', async () => {
    const kv = new MemoryKvStore();
    const asked: string[] = [];
    const watched: KvStore = {
      get: (key) => {
        asked.push(key.join(' '));
        return kv.get(key);
      },
      set: (key, value, options) => kv.set(key, value, options),
      delete: (key) => kv.delete(key),
      cas: (key, expected, value, options) => kv.cas(key, expected, value, options),
      list: (prefix) => kv.list(prefix),
    };
    const queued: unknown[] = [];
    const queue = { enqueue: async (message: unknown) => void queued.push(message), listen: async () => undefined };
    // The site went on the fediverse at 1000 (the first look), and both posts went live after that.
    const post = (slug: string) => ({
      slug,
      title: slug,
      description: 'A new post.',
      tags: [],
      dateMillis: 2000,
      updatedMillis: undefined,
      url: `https://blog.example/blog/${slug}`,
    });
    const fediverse = siteFediverse({
      stores: { kv: watched, queue, close: () => undefined },
      origin: 'https://blog.example',
      handle: 'blog',
      allowPrivateAddress: false,
      now: () => 1000,
      posts: () => [post('new') as never, post('newer') as never],
      profile: () => ({ name: 'A site', summary: 'About it.' }),
      log: { warn: () => undefined, log: () => undefined },
      ...limits(),
    });
    await fediverse.deliver(['new']);
    expect(asked.filter((key) => key === 'lectern keys')).toEqual([]);
    expect(queued).toEqual([]);

    await kv.set(['lectern', 'followers', 'https://remote.example/u/a'], {
      id: 'https://remote.example/u/a',
      inbox: 'https://remote.example/u/a/inbox',
      sharedInbox: 'https://remote.example/inbox',
    });
    await fediverse.deliver(['newer']);
    expect(queued).toHaveLength(1);
    expect(JSON.stringify(queued[0])).toContain('https://blog.example/blog/newer#create');
  });
});

describe('the budget of a remote server', () => {
  const peers: FediversePeer[] = [];
  afterEach(async () => void (await Promise.all(peers.splice(0).map((peer) => peer.stop()))));

  it('is charged to the server whose key verified, never to another key the Signature header names', async () => {
    const [victim, sender] = await Promise.all([startFediversePeer(), startFediversePeer()]);
    peers.push(victim, sender);
    // Every budget the inbox charges, as the limiter is asked.
    const charged: string[] = [];
    const memory = memoryLimiter({ windowScale: 1 });
    const limiter: Limiter = { ...memory, check: (route, client, cost) => (charged.push(`${route} ${client}`), memory.check(route, client, cost)) };
    const fediverse = siteFediverse({
      stores: { kv: new MemoryKvStore(), queue: new InProcessMessageQueue(), close: () => undefined },
      origin: 'https://blog.example',
      handle: 'blog',
      allowPrivateAddress: true,
      now: () => Date.now(),
      posts: () => [],
      profile: () => ({ name: 'A site', summary: 'About it.' }),
      log: { warn: () => undefined, log: () => undefined },
      limiter: () => limiter,
      deployment: { trustProxy: 1, clientIpHeader: undefined, platform: false },
    });
    const like = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${sender.actorUrl}#like`,
      type: 'Like',
      actor: sender.actorUrl,
      object: 'https://blog.example/',
    };
    const headers = await sender.signedPost('https://blog.example/inbox', like);
    // The victim's key named first, in the same header: Fedify verifies the one the header gives last (draft-cavage), the sender's.
    headers.set('Signature', `keyId="${victim.actorUrl}#main-key",${headers.get('signature')}`);
    headers.set('X-Forwarded-For', '203.0.113.7');
    const taken = await fediverse.respond(new Request('https://blog.example/inbox', { method: 'POST', headers, body: JSON.stringify(like) }));
    expect(taken.status).toBe(202);
    expect(charged).toContain(`fediverseServer server:${new URL(sender.url).host}`);
    expect(charged.filter((entry) => entry.startsWith('fediverseServer'))).toEqual([`fediverseServer server:${new URL(sender.url).host}`]);
    // The victim was asked for nothing: its key never verified anything.
    expect(victim.gets).toEqual([]);
  });
});

describe('an unsigned inbox post', () => {
  it('is 401 whatever its body, with nothing fetched and nothing logged: a remote @context, deep JSON', async () => {
    const contextServer = await startFediversePeer();
    const logged: unknown[] = [];
    const errors = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const fediverse = siteFediverse({
        stores: { kv: new MemoryKvStore(), queue: new InProcessMessageQueue(), close: () => undefined },
        origin: 'https://blog.example',
        handle: 'blog',
        allowPrivateAddress: true,
        now: () => Date.now(),
        posts: () => [],
        profile: () => ({ name: 'A site', summary: 'About it.' }),
        log: { warn: (...args: unknown[]) => void logged.push(args), log: (...args: unknown[]) => void logged.push(args) },
        limiter: limits().limiter,
        // The client's address from X-Forwarded-For, as behind nginx.
        deployment: { trustProxy: 1, clientIpHeader: undefined, platform: false },
      });
      const remoteContext = JSON.stringify({
        '@context': `${contextServer.url}/context.jsonld`,
        type: 'Follow',
        actor: contextServer.actorUrl,
        object: 'https://blog.example/@blog',
      });
      const deep = `{"@context":"https://www.w3.org/ns/activitystreams","type":"Like","object":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
      for (const body of [remoteContext, deep]) {
        const headers = { 'Content-Type': 'application/activity+json', 'X-Forwarded-For': '203.0.113.7' };
        const answer = await fediverse.respond(new Request('https://blog.example/inbox', { method: 'POST', headers, body }));
        expect(answer.status).toBe(401);
        expect(answer.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      }
      expect(contextServer.gets).toEqual([]);
      expect(logged).toEqual([]);
    } finally {
      console.error = errors;
      await contextServer.stop();
    }
  });
});
