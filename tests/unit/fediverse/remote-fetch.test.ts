import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryKvStore, UrlError, type DocumentLoader } from '@fedify/fedify';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverableInboxes, guardedLoader, remoteFetchLoaders } from '@/lib/fediverse/remote-fetch';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A remote server on loopback: an actor at /actor (counting its fetches), and /slow, which never answers. */
async function remote() {
  const hits = { actor: 0 };
  server = createServer((req, res) => {
    if (req.url === '/slow') return;
    hits.actor += 1;
    res.writeHead(200, { 'Content-Type': 'application/activity+json' });
    res.end(JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `http://${req.headers.host}/actor`, type: 'Person' }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, hits };
}

describe('guardedLoader', () => {
  const asked: string[] = [];
  const inner: DocumentLoader = async (url) => {
    asked.push(url);
    return { contextUrl: null, documentUrl: url, document: {} };
  };

  it('refuses plain http and any host of a blocked domain without fetching, and lets https and the contexts Fedify carries through', async () => {
    asked.length = 0;
    const loader = guardedLoader(inner, { allowPrivateAddress: false, blockedDomains: ['spam.example'] });
    await expect(loader('http://mastodon.example/users/a')).rejects.toThrow(UrlError);
    await expect(loader('https://social.spam.example/users/a')).rejects.toThrow(/blocked/);
    await loader('https://mastodon.example/users/a');
    await loader('https://www.w3.org/ns/activitystreams');
    expect(asked).toEqual(['https://mastodon.example/users/a', 'https://www.w3.org/ns/activitystreams']);
  });

  it('lets plain http through only with the tests’ loopback setting, and never a blocked domain', async () => {
    asked.length = 0;
    const loader = guardedLoader(inner, { allowPrivateAddress: true, blockedDomains: ['spam.example'] });
    await loader('http://127.0.0.1:9/actor');
    await expect(loader('http://spam.example/actor')).rejects.toThrow(/blocked/);
    expect(asked).toEqual(['http://127.0.0.1:9/actor']);
  });
});

describe('remoteFetchLoaders', () => {
  it('gives up on a server that does not answer within the timeout', async () => {
    const { base } = await remote();
    const { documentLoaderFactory } = remoteFetchLoaders({ kv: new MemoryKvStore(), allowPrivateAddress: true, blockedDomains: [], timeoutMs: 200 });
    const started = performance.now();
    await expect(documentLoaderFactory()(`${base}/slow`)).rejects.toThrow(/timeout|aborted/i);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('keeps what it fetched: a second load of the same actor asks its server nothing', async () => {
    const { base, hits } = await remote();
    const loader = remoteFetchLoaders({ kv: new MemoryKvStore(), allowPrivateAddress: true, blockedDomains: [] }).documentLoaderFactory();
    const first = await loader(`${base}/actor`);
    const second = await loader(`${base}/actor`);
    expect(second.document).toEqual(first.document);
    expect(hits.actor).toBe(1);
  });

  it('refuses loopback and private addresses outside the tests, over https too (Fedify’s own check, kept)', async () => {
    const { base, hits } = await remote();
    const loader = remoteFetchLoaders({ kv: new MemoryKvStore(), allowPrivateAddress: false, blockedDomains: [] }).documentLoaderFactory();
    await expect(loader(`${base.replace('http:', 'https:')}/actor`)).rejects.toThrow(UrlError);
    await expect(loader('https://10.0.0.7/actor')).rejects.toThrow(UrlError);
    await expect(loader('https://localhost/actor')).rejects.toThrow(UrlError);
    expect(hits.actor).toBe(0);
  });
});

describe('deliverableInboxes', () => {
  const outside = { allowPrivateAddress: false, blockedDomains: ['spam.example'] };

  it('keeps no follower whose inbox is plain http, on a loopback or private address, or on a blocked domain', async () => {
    for (const inbox of [
      'http://8.8.8.8/inbox',
      'https://127.0.0.1/inbox',
      'https://10.1.2.3/inbox',
      'https://[::1]/inbox',
      'https://localhost/inbox',
      'https://social.spam.example/inbox',
    ])
      expect(await deliverableInboxes([new URL('https://8.8.4.4/users/a/inbox'), new URL(inbox)], outside), inbox).toBe(false);
    expect(await deliverableInboxes([new URL('https://8.8.4.4/users/a/inbox'), new URL('https://8.8.8.8/inbox')], outside)).toBe(true);
  });

  it('lets the tests deliver to loopback over plain http, never to a blocked domain', async () => {
    const tests = { allowPrivateAddress: true, blockedDomains: ['spam.example'] };
    expect(await deliverableInboxes([new URL('http://127.0.0.1:9/inbox')], tests)).toBe(true);
    expect(await deliverableInboxes([new URL('http://spam.example/inbox')], tests)).toBe(false);
  });
});
