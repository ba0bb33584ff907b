import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatureHeaders } from 'web-bot-auth';
import { signerFromJWK } from 'web-bot-auth/crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshAddress, request } from '../support/client';
import { url } from '../support/http';

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

type Signer = Awaited<ReturnType<typeof signerFromJWK>>;

/** An Ed25519 key pair as JWKs: the private one signs, the public one goes in the directory. */
async function keyPair(): Promise<{ signer: Signer; publicJwk: JsonWebKey }> {
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const privateJwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  const { kty, crv, x } = await crypto.subtle.exportKey('jwk', pair.publicKey);
  return { signer: await signerFromJWK(privateJwk), publicJwk: { kty, crv, x } };
}

/** A signed POST /mcp as an agent sends it: Signature-Agent names its directory; the signature covers @authority and Signature-Agent. */
async function signedHeaders(signer: Signer, agent: string, times: { created: Date; expires: Date }): Promise<Record<string, string>> {
  const target = url('/mcp');
  const headers = { ...MCP_HEADERS, host: new URL(target).host, 'signature-agent': `"${agent}"` };
  const signature = await signatureHeaders({ method: 'POST', url: target, headers }, signer, times);
  return { ...headers, signature: signature.Signature, 'signature-input': signature['Signature-Input'] };
}

const fresh = () => ({ created: new Date(Date.now() - 1000), expires: new Date(Date.now() + 60_000) });
const post = (headers: Record<string, string>, from: string) => request(url('/'), '/mcp', { method: 'POST', headers, body: PING, from });
const policy = (response: { headers: http.IncomingHttpHeaders }) => String(response.headers['ratelimit-policy']);

describe('Web Bot Auth on /mcp', () => {
  let directory: http.Server;
  let agent: string;
  let key: { signer: Signer; publicJwk: JsonWebKey };
  let stranger: Signer;
  let directoryRequests = 0;

  beforeAll(async () => {
    key = await keyPair();
    stranger = (await keyPair()).signer;
    // The agent's key directory, served on loopback (the site under test allows it: WEB_BOT_AUTH_LOOPBACK_DIRECTORIES).
    directory = http.createServer((req, res) => {
      directoryRequests += 1;
      if (req.url !== '/.well-known/http-message-signatures-directory') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/http-message-signatures-directory+json' }).end(JSON.stringify({ keys: [key.publicJwk] }));
    });
    await new Promise<void>((resolve) => directory.listen(0, '127.0.0.1', resolve));
    agent = `http://127.0.0.1:${(directory.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => directory.close(resolve));
  });

  it('verifies a signed request and counts it on the agent budget, past what one address may send, fetching the directory once', async () => {
    const from = freshAddress();
    const first = await post(await signedHeaders(key.signer, agent, fresh()), from);
    expect(first.status).toBe(200);
    expect(policy(first)).toBe('"mcpAgent";q=6000;w=60');
    // 1,250 calls from one address: past its 1,200 a minute, all answered, counted against the agent.
    const statuses: number[] = [];
    for (let batch = 0; batch < 50; batch += 1) {
      const answers = await Promise.all(Array.from({ length: 25 }, async () => post(await signedHeaders(key.signer, agent, fresh()), from)));
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(directoryRequests).toBe(1);
  }, 120_000);

  it('takes a forged, an expired, a replayed or a self-declared agent as unverified: the per-address budget, answered as usual', async () => {
    const from = freshAddress();
    const forged = await post(await signedHeaders(stranger, agent, fresh()), from);
    expect(forged.status).toBe(200);
    expect(policy(forged)).toBe('"mcp";q=1200;w=60');

    const expired = await post(
      await signedHeaders(key.signer, agent, { created: new Date(Date.now() - 120_000), expires: new Date(Date.now() - 60_000) }),
      from,
    );
    expect(expired.status).toBe(200);
    expect(policy(expired)).toBe('"mcp";q=1200;w=60');

    const once = await signedHeaders(key.signer, agent, fresh());
    expect(policy(await post(once, from))).toBe('"mcpAgent";q=6000;w=60');
    const replayed = await post(once, from);
    expect(replayed.status).toBe(200);
    expect(policy(replayed)).toBe('"mcp";q=1200;w=60');

    const declared = await post({ ...MCP_HEADERS, 'x-lectern-verified-agent': agent, 'x-lectern-verified-agent-proof': 'AAAA' }, from);
    expect(policy(declared)).toBe('"mcp";q=1200;w=60');

    // A Signature-Agent changed after signing (pointing at another directory) is not taken either.
    const uncovered = { ...(await signedHeaders(key.signer, agent, fresh())), 'signature-agent': `"http://127.0.0.1:1"` };
    expect(policy(await post(uncovered, from))).toBe('"mcp";q=1200;w=60');
  });
});
