import { LRUCache } from 'lru-cache';
import { helpers, jwkToKeyID, SIGNATURE_AGENT_HEADER, verify, type VerificationParams } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';
import { directoryOrigin, type KeyDirectories } from './key-directory';

/** The longest validity (`expires` − `created`) taken: a signature is remembered that long, to refuse its replay. */
const MAX_VALIDITY_MS = 60 * 60 * 1000;

/** A request as it reached lectern's server: the URL the client addressed (scheme, Host, target) and its headers. */
export type SignedRequest = { method: string; url: string; headers: Record<string, string | string[] | undefined> };

/** Whether the request carries a Web Bot Auth signature at all (nothing is fetched for one that does not). */
export function isSigned(headers: SignedRequest['headers']): boolean {
  return Boolean(headers['signature'] && headers['signature-input'] && headers[SIGNATURE_AGENT_HEADER]);
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : (value ?? ''));

/**
 * The agent's key directory URL from `Signature-Agent`: an sf-string (`"https://agent.example"`,
 * draft-meunier-web-bot-auth-architecture) or a one-member dictionary (`sig1="https://…"`,
 * draft-ietf-webbotauth-httpsig-protocol), with the value the signature base holds for it.
 */
function signatureAgent(value: string): { url: string; covered: string } | undefined {
  const text = value.trim();
  const bare = /^"([^"\\]*)"$/.exec(text);
  if (bare) return { url: bare[1]!, covered: text };
  const member = /^[a-z*][a-z0-9_.*-]*="([^"\\]*)"$/.exec(text);
  return member ? { url: member[1]!, covered: `"${member[1]!}"` } : undefined;
}

export type AgentVerifier = (request: SignedRequest) => Promise<string | undefined>;

/**
 * Web Bot Auth (draft-ietf-webbotauth-httpsig-protocol): the identity of the agent that signed
 * the request, or undefined. Verified means: one RFC 9421 signature tagged `web-bot-auth`,
 * covering `@authority` and `Signature-Agent`, within its `created`…`expires` (at most an hour
 * apart), by a key whose JWK thumbprint is its `keyid` in the key directory `Signature-Agent`
 * names, and not seen before. The identity is that directory's origin: every key and address
 * of one agent share it. Anything else (no directory, a bad, expired or replayed signature) is
 * undefined, never an error.
 */
export function createAgentVerifier(directories: KeyDirectories, options: { loopback: boolean }): AgentVerifier {
  // Signatures verified within their validity; a second request with one is a replay.
  const seen = new LRUCache<string, true>({ max: 100_000, ttlAutopurge: false });
  return async (request) => {
    try {
      if (!isSigned(request.headers)) return undefined;
      const agent = signatureAgent(one(request.headers[SIGNATURE_AGENT_HEADER]));
      const origin = agent && directoryOrigin(agent.url, options);
      const input = one(request.headers['signature-input']);
      const signature = one(request.headers['signature']);
      if (!agent || !origin || !/"@authority"/.test(input) || !/"signature-agent"/.test(input) || seen.has(signature)) return undefined;
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers.set(name, one(value));
      // The signature base holds the covered value of a dictionary member, not the whole field (RFC 9421 §2.1.2).
      headers.set(SIGNATURE_AGENT_HEADER, /"signature-agent";key=/.test(input) ? agent.covered : one(request.headers[SIGNATURE_AGENT_HEADER]));
      const message = { method: request.method, url: request.url, headers };
      let params: VerificationParams | undefined;
      const check = async (refresh: boolean) => {
        const keys = await directories.keys(origin, refresh);
        await verify(message, async (data, bytes, given) => {
          if (given.expires.getTime() - given.created.getTime() > MAX_VALIDITY_MS) throw new Error('valid for too long');
          for (const key of keys) {
            if ((await jwkToKeyID(key, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE)) !== given.keyid) continue;
            await (
              await verifierFromJWK(key)
            )(data, bytes, given);
            params = given;
            return;
          }
          throw new Error('no such key in the directory');
        });
      };
      // A key the cached directory lacks may be new: the directory is asked again (at most once a minute).
      await check(false).catch(() => check(true));
      if (!params || seen.has(signature)) return undefined;
      seen.set(signature, true, { ttl: Math.max(1, params.expires.getTime() - Date.now()) });
      return origin;
    } catch {
      return undefined;
    }
  };
}
