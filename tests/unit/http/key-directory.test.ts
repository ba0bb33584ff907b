import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createKeyDirectories } from '@/lib/http/key-directory';

const KEY = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
const servers: http.Server[] = [];

afterEach(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A key directory on loopback: `answer` writes its response; the requests it got are counted. */
async function directory(answer: (res: http.ServerResponse) => void) {
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests += 1;
    answer(res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests };
}

const serves = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [KEY] }));

/** A directory that sends its head, then one byte of its body every 50 ms, never its end; `hungUp` resolves once the client hangs up. */
function dripping() {
  let hangUp: () => void;
  const hungUp = new Promise<void>((resolve) => (hangUp = resolve));
  const drips = (res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"keys":[');
    const timer = setInterval(() => res.write(' '), 50);
    res.on('close', () => {
      clearInterval(timer);
      hangUp();
    });
  };
  return { drips, hungUp };
}
const { drips } = dripping();

describe('key directories', () => {
  it('gives up a directory that drips at its deadline, however often it sends a byte: no keys, and it hangs up', async () => {
    const drip = dripping();
    const slow = await directory(drip.drips);
    // A byte every 50 ms would keep an idle timeout of 300 ms from ever firing.
    const directories = createKeyDirectories({ loopback: true, timeoutMs: 300 });
    expect(await directories.keys(slow.origin)).toEqual([]);
    await drip.hungUp;
    // The drip never ends: a fetch with no deadline would keep this test waiting until its own timeout.
  }, 10_000);

  it('fetches a directory once for every request that names it at once, and keeps it', async () => {
    const agent = await directory(serves);
    const directories = createKeyDirectories({ loopback: true });
    const all = await Promise.all(Array.from({ length: 20 }, () => directories.keys(agent.origin)));
    expect(all).toEqual(Array.from({ length: 20 }, () => [KEY]));
    expect(await directories.keys(agent.origin)).toEqual([KEY]);
    expect(agent.requests()).toBe(1);
  });

  it('past its fetches at once, or its requests waiting, gives a directory it does not keep no keys at once, and fetches it later', async () => {
    const dripping = await Promise.all([directory(drips), directory(drips)]);
    const agent = await directory(serves);
    const directories = createKeyDirectories({ loopback: true, timeoutMs: 300, maxFetches: 2, maxWaiting: 3 });
    const slow = [directories.keys(dripping[0]!.origin), directories.keys(dripping[1]!.origin)];
    // Two fetches at once: a third origin is not fetched now.
    expect(await directories.keys(agent.origin)).toEqual([]);
    expect(agent.requests()).toBe(0);
    // One more may wait for a fetch under way; the one after it is not kept waiting.
    const third = directories.keys(dripping[0]!.origin);
    expect(await directories.keys(dripping[1]!.origin)).toEqual([]);
    expect(await Promise.all([...slow, third])).toEqual([[], [], []]);
    expect(dripping.map((server) => server.requests())).toEqual([1, 1]);
    // The fetches given up, the third origin is fetched, and nothing was kept for it meanwhile.
    expect(await directories.keys(agent.origin)).toEqual([KEY]);
    expect(agent.requests()).toBe(1);
  });
});
