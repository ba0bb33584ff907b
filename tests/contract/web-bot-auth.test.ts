import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshAddress, request, type RawResponse } from '../support/client';
import { url } from '../support/http';

// The contract build's VERIFIED_AGENT_BUDGET (tests/contract/global-setup.ts): small, so a budget is spent in a few requests.
const AGENT_BUDGET = 20;
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
// A 50-result search costs 11 units (1 and 1 per 5 results): the first fits the budget of 20, the second does not.
const SEARCH = '/api/search?q=alpha&limit=50';

type Signer = Awaited<ReturnType<typeof signerFromJWK>>;
type Times = { created: Date; expires: Date };

/** An Ed25519 key pair as JWKs: the private one signs, the public one goes in the directory. */
async function keyPair(): Promise<{ signer: Signer; publicJwk: JsonWebKey }> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const privateJwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  const { kty, crv, x } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { signer: await signerFromJWK(privateJwk), publicJwk: { kty, crv, x } };
}

/** A request's headers as an agent signs them: Signature-Agent names its directory; the signature covers @authority and Signature-Agent. */
async function signed(signer: Signer, agent: string, method: string, path: string, headers: Record<string, string>, times: Times) {
  const target = url(path);
  const all = { ...headers, host: new URL(target).host, 'signature-agent': `"${agent}"` };
  const signature = await signatureHeaders({ method, url: target, headers: all }, signer, times);
  return { ...all, signature: signature.Signature, 'signature-input': signature['Signature-Input'] };
}

const fresh = (): Times => ({ created: new Date(Date.now() - 1000), expires: new Date(Date.now() + 60_000) });
const expired = (): Times => ({ created: new Date(Date.now() - 120_000), expires: new Date(Date.now() - 60_000) });
const mcp = (headers: Record<string, string>, from: string) => request(url('/'), '/mcp', { method: 'POST', headers, body: PING, from });
const search = (headers: Record<string, string>, from: string) => request(url('/'), SEARCH, { headers, from });
const policy = (response: RawResponse) => response.headers['ratelimit-policy'];

/** A test agent: its key, and its key directory served on loopback (the site under test allows it: WEB_BOT_AUTH_LOOPBACK_DIRECTORIES). */
async function testAgent() {
  const key = await keyPair();
  const stranger = (await keyPair()).signer;
  let directoryRequests = 0;
  const directory = http.createServer((req, res) => {
    directoryRequests += 1;
    if (req.url !== '/.well-known/http-message-signatures-directory') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/http-message-signatures-directory+json' }).end(JSON.stringify({ keys: [key.publicJwk] }));
  });
  await new Promise<void>((resolve) => directory.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(directory.address() as AddressInfo).port}`;
  return {
    origin,
    sign: (method: string, path: string, headers: Record<string, string>, times = fresh()) => signed(key.signer, origin, method, path, headers, times),
    forge: (method: string, path: string, headers: Record<string, string>) => signed(stranger, origin, method, path, headers, fresh()),
    directoryRequests: () => directoryRequests,
    close: () => new Promise((resolve) => directory.close(resolve)),
  };
}

describe('Web Bot Auth', () => {
  let agent: Awaited<ReturnType<typeof testAgent>>;
  beforeAll(async () => {
    agent = await testAgent();
  });
  afterAll(async () => {
    await agent.close();
  });

  it('on /mcp: a verified agent is counted by its identity on its own budget, whatever its address; the address keeps its own', async () => {
    const from = freshAddress();
    const answers: RawResponse[] = [];
    for (let call = 0; call < AGENT_BUDGET; call += 1) answers.push(await mcp(await agent.sign('POST', '/mcp', MCP_HEADERS), from));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: AGENT_BUDGET }, () => 200));
    expect(answers.map(policy)).toEqual(Array.from({ length: AGENT_BUDGET }, () => `"mcpAgent";q=${AGENT_BUDGET};w=60`));
    expect(answers.at(-1)?.headers.ratelimit).toMatch(/^"mcpAgent";r=0;t=\d+$/);

    // The budget is the agent's: spent, it is spent from another address too.
    const past = await mcp(await agent.sign('POST', '/mcp', MCP_HEADERS), freshAddress());
    expect(past.status).toBe(429);
    expect(Number(past.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(past.body)).toMatchObject({ type: expect.stringContaining('rate-limited'), detail: expect.stringContaining('your agent') });

    // The address it came from has its own budget, untouched; a forged signature from it is answered on that budget.
    const unsigned = await mcp(MCP_HEADERS, from);
    expect([unsigned.status, policy(unsigned)]).toEqual([200, '"mcp";q=1200;w=60']);
    const forged = await mcp(await agent.forge('POST', '/mcp', MCP_HEADERS), from);
    expect([forged.status, policy(forged)]).toEqual([200, '"mcp";q=1200;w=60']);
    // One directory fetch for every request (kept an hour; the forged key is not in it, and a missing key asks again at most once a minute).
    expect(agent.directoryRequests()).toBe(1);
  });

  it('on /api/search: a verified agent spends its own budget (never a 429: past it, 503 overloaded); other searches count nowhere', async () => {
    const other = await testAgent();
    try {
      const from = freshAddress();
      const first = await search(await other.sign('GET', SEARCH, {}), from);
      expect(first.status).toBe(200);
      expect(policy(first)).toBe(`"searchAgent";q=${AGENT_BUDGET};w=60`);
      expect(first.headers.ratelimit).toMatch(new RegExp(`^"searchAgent";r=${AGENT_BUDGET - 11};t=\\d+$`));
      const unsignedFirst = await search({}, from);
      expect(JSON.parse(first.body)).toEqual(JSON.parse(unsignedFirst.body));

      const past = await search(await other.sign('GET', SEARCH, {}), freshAddress());
      expect(past.status).toBe(503);
      expect(past.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(Number(past.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(policy(past)).toBe(`"searchAgent";q=${AGENT_BUDGET};w=60`);
      expect(JSON.parse(past.body)).toMatchObject({ type: expect.stringContaining('overloaded'), detail: expect.stringContaining('your agent') });

      // The same address unsigned, or with a forged or an expired signature: answered, counted nowhere.
      for (const headers of [{}, await other.forge('GET', SEARCH, {}), await other.sign('GET', SEARCH, {}, expired())]) {
        const answer = await search(headers, from);
        expect([answer.status, policy(answer)]).toEqual([200, undefined]);
      }
    } finally {
      await other.close();
    }
  });

  it('takes a forged, an expired, a replayed, an altered or a self-declared agent as unverified: the per-address budget, answered as usual', async () => {
    const from = freshAddress();
    // An agent whose directory no longer answers.
    const gone = await testAgent();
    const unanswered = await gone.sign('POST', '/mcp', MCP_HEADERS);
    await gone.close();
    const fresh = await testAgent();
    try {
      const once = await fresh.sign('POST', '/mcp', MCP_HEADERS);
      expect(policy(await mcp(once, from))).toBe(`"mcpAgent";q=${AGENT_BUDGET};w=60`);
      const cases = {
        forged: await fresh.forge('POST', '/mcp', MCP_HEADERS),
        expired: await fresh.sign('POST', '/mcp', MCP_HEADERS, expired()),
        replayed: once,
        // A Signature-Agent changed after signing (pointing at another directory).
        altered: { ...(await fresh.sign('POST', '/mcp', MCP_HEADERS)), 'signature-agent': '"http://127.0.0.1:1"' },
        // lectern's own record of a verified agent, sent by a client: removed before anything reads it.
        declared: { ...MCP_HEADERS, 'x-lectern-verified-agent': fresh.origin, 'x-lectern-verified-agent-proof': 'AAAA' },
        // A directory that no longer answers: not verified, not an error.
        unreachable: unanswered,
      };
      for (const [name, headers] of Object.entries(cases)) {
        const answer = await mcp(headers, from);
        expect([name, answer.status, policy(answer)]).toEqual([name, 200, '"mcp";q=1200;w=60']);
      }
    } finally {
      await fresh.close();
    }
  });
});
