import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordVerifiedAgent } from '@/lib/http/client-ip';
import { memoryLimiter } from '@/lib/limits/limiter';
import { createRequestHandler } from '@/lib/server/request-handler';
import { settings } from '@/lib/settings';
import { createSearchThread, JobNotSendableError, searchReads, ThreadBusyError, type SearchThread } from '@/lib/server/search-thread';

const workerUrl = new URL('../../fixtures/search-thread-worker.ts', import.meta.url);
const quiet = { info: () => undefined, warn: () => undefined };
const threads: SearchThread[] = [];
let server: Server | undefined;

afterEach(async () => {
  await Promise.all(threads.splice(0).map((thread) => thread.stop()));
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  for (const name of ['SEARCH_TEST_MARKER', 'SEARCH_TEST_RELEASE', 'SEARCH_TEST_FAIL_START']) delete process.env[name];
});

/** A thread on the test's worker, with files of its own for the worker's markers. */
async function thread(inThread?: number, waiting?: { search: number; mcp: number }): Promise<{ thread: SearchThread; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-search-thread-'));
  process.env.SEARCH_TEST_MARKER = path.join(dir, 'crashed');
  process.env.SEARCH_TEST_RELEASE = path.join(dir, 'release');
  const started = createSearchThread({ buildTime: settings().build.time, workerUrl, inThread, waiting, log: quiet });
  threads.push(started);
  await started.start();
  return { thread: started, dir };
}

const search = (running: SearchThread, q: string) => running.search({ q, limit: 10 }).then((answer) => answer.results);

describe("lectern's search thread", () => {
  it('starts no thread until it is started, and answers a search asked before once it is', async () => {
    const idle = createSearchThread({ buildTime: settings().build.time, workerUrl, log: quiet });
    threads.push(idle);
    expect(idle.started).toBe(0);
    const early = search(idle, 'fast');
    expect(idle.started).toBe(0);
    await idle.start();
    expect(idle.started).toBe(1);
    expect(await early).toMatchObject({ query: 'fast' });
  });

  it('answers every search, handing the thread at most its cap at once while the others wait (within the queue)', async () => {
    const { thread: running } = await thread(2);
    const answers = await Promise.all(Array.from({ length: 7 }, () => search(running, 'slow')));
    expect(answers).toHaveLength(7);
    expect(Math.max(...answers.map((answer) => answer.total))).toBe(2);
  });

  it('refuses a search or an MCP call past its short queue at once, and takes them again once there is room', async () => {
    const { thread: running, dir } = await thread(1, { search: 1, mcp: 1 });
    const mcpJob = { url: 'http://localhost/mcp', headers: [], body: new Uint8Array(), message: { jsonrpc: '2.0', id: 1, method: 'ping' } };
    // One search holds the thread, one waits: the queue of searches is full, the MCP queue is not.
    const holding = search(running, 'hold');
    const waiting = search(running, 'slow');
    expect(running.busy('search')).toBe(true);
    await expect(search(running, 'slow')).rejects.toBeInstanceOf(ThreadBusyError);
    expect(running.busy('mcp')).toBe(false);
    const mcpWaiting = running.mcp(mcpJob);
    await expect(running.mcp(mcpJob)).rejects.toBeInstanceOf(ThreadBusyError);
    // The read the server answers for a refused search: a 503 problem with Retry-After, kept by no cache.
    const refused = await searchReads(running, 0)('/api/search', '?q=slow', {});
    expect(refused?.status).toBe(503);
    expect(refused?.headers.get('retry-after')).toBe('1');
    expect(refused?.headers.get('cache-control')).toBe('no-store');
    expect(refused?.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await refused?.json()).toMatchObject({
      status: 503,
      title: 'Too busy; try again shortly',
      type: 'http://localhost:3000/docs/api#problem-overloaded',
    });
    // A refused MCP call is not sent to the thread (this test's thread speaks searches only): stopping refuses the waiting one.
    const stopped = expect(mcpWaiting).rejects.toThrow(/stopped/);
    fs.writeFileSync(path.join(dir, 'release'), '');
    expect((await holding).query).toBe('hold');
    expect((await waiting).query).toBe('slow');
    expect(running.busy('search')).toBe(false);
    await running.stop();
    await stopped;
  });

  it('refuses a job it cannot hand to the thread (no structured clone of it) at once, its place freed for the next', async () => {
    const { thread: running } = await thread(1);
    // Nested past what a structured clone can take: posting it to the thread throws.
    let nested: unknown = [];
    for (let level = 0; level < 20_000; level += 1) nested = [nested];
    const unsendable = { url: 'http://localhost/mcp', headers: [], body: new Uint8Array(), message: nested };
    for (let call = 0; call < 3; call += 1) await expect(running.mcp(unsendable)).rejects.toBeInstanceOf(JobNotSendableError);
    expect((await search(running, 'slow')).query).toBe('slow');
  });

  it('starts another thread when it dies, and the search it held is answered by the new one', async () => {
    const { thread: running } = await thread();
    const [dying, waiting] = await Promise.all([search(running, 'crash-once'), search(running, 'slow')]);
    expect(dying).toEqual({ query: 'crash-once', total: 0, results: [] });
    expect(waiting.query).toBe('slow');
    expect(running.started).toBe(2);
  });

  it('gives up on a search the thread dies on twice, and keeps answering the others', async () => {
    const { thread: running } = await thread();
    await expect(search(running, 'crash')).rejects.toThrow(/twice/);
    expect((await search(running, 'slow')).query).toBe('slow');
    expect(running.started).toBe(3);
  });

  it('fails its start when the first thread dies before its index is built', async () => {
    process.env.SEARCH_TEST_FAIL_START = '1';
    const failing = createSearchThread({ buildTime: settings().build.time, workerUrl, log: quiet });
    threads.push(failing);
    await expect(failing.start()).rejects.toThrow(/before its index was built/);
  });

  it('stops: searches not answered and any asked later are refused to the caller, which answers them another way', async () => {
    const { thread: running } = await thread();
    const held = expect(search(running, 'hold')).rejects.toThrow(/stopped/);
    await running.stop();
    await held;
    await expect(search(running, 'slow')).rejects.toThrow(/stopped/);
  });

  it("lets lectern's server answer reads while a search keeps the thread busy", async () => {
    const { thread: running, dir } = await thread();
    const rendered: string[] = [];
    const handler = createRequestHandler(
      (req, res) => {
        rendered.push(req.url ?? '');
        res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'public, max-age=60' });
        res.end('page');
      },
      { siteUrl: 'http://localhost:3000', trustProxy: 0, csp: true },
      { own: searchReads(running) },
    );
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let searched = false;
    const searching = fetch(`${base}/api/search?q=hold`).then(async (response) => {
      searched = true;
      return { status: response.status, lastModified: response.headers.get('last-modified'), body: (await response.json()) as unknown };
    });
    // The search holds its thread until the reads below have been answered.
    const reads = [];
    for (let i = 0; i < 3; i += 1) reads.push(await (await fetch(`${base}/page`)).text());
    expect(reads).toEqual(['page', 'page', 'page']);
    expect(searched).toBe(false);
    fs.writeFileSync(path.join(dir, 'release'), '');
    // Last-Modified is the one the thread sent with its results: the server's own thread loads no posts for it.
    expect(await searching).toEqual({ status: 200, lastModified: 'Tue, 14 Nov 2023 22:13:20 GMT', body: { query: 'hold', total: 0, results: [] } });
    expect(rendered).toEqual(['/page']);
  });

  it("counts a verified agent's searches against its own budget (never a 429: past it a 503), logs its identity, and counts no one else's", async () => {
    const { thread: running } = await thread();
    // One instant for the whole test: 546 searches take seconds, and a budget's window may turn meanwhile.
    const now = Date.now();
    const limiter = memoryLimiter({ windowScale: 1, clock: () => now });
    const reads = searchReads(running, 0, () => limiter);
    const agent = (name: string) => {
      const headers = {};
      recordVerifiedAgent(headers, name);
      return headers;
    };
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    try {
      // A 50-result search costs 11 units of the 6,000 a minute (VERIFIED_AGENT_BUDGET's default): 545 fit, the 546th does not.
      const answers = [];
      for (let i = 0; i < 546; i += 1) answers.push(await reads('/api/search', '?q=slow&limit=50', agent('https://agent.example'))!);
      expect(answers.slice(0, 545).map((answer) => answer.status)).toEqual(Array.from({ length: 545 }, () => 200));
      expect(answers[0]!.headers.get('ratelimit-policy')).toBe('"searchAgent";q=6000;w=60');
      const past = answers[545]!;
      expect(past.status).toBe(503);
      expect(Number(past.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await past.json()).toMatchObject({ detail: expect.stringContaining('your agent') });
      expect(info).toHaveBeenCalledWith('search from verified agent https://agent.example');
      expect(info).toHaveBeenCalledWith('search from verified agent https://agent.example (past its budget)');
      // Another agent has its own budget; a search with no verified agent (or a client's own copy of the record) is counted nowhere.
      expect((await reads('/api/search', '?q=slow&limit=50', agent('https://other.example'))!).status).toBe(200);
      const forged = { 'x-lectern-verified-agent': 'https://agent.example', 'x-lectern-verified-agent-proof': 'AAAA' };
      for (const headers of [{}, forged]) {
        const answer = await reads('/api/search', '?q=slow&limit=50', headers)!;
        expect([answer.status, answer.headers.get('ratelimit-policy')]).toEqual([200, null]);
      }
    } finally {
      info.mockRestore();
    }
  }, 60_000);
});
