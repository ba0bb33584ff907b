import type { Ipv6Prefix } from '../routes/manifest';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { findShared, shared } from '../process-shared';

/**
 * The header in which lectern's server records the socket address of the client.
 * Any value a client sends under this name is removed before Next sees the request.
 */
export const CLIENT_IP_HEADER = 'x-lectern-client-ip';
/** Beside it, an HMAC of that address under a key that only this process knows. */
export const CLIENT_IP_PROOF_HEADER = 'x-lectern-client-ip-proof';

/**
 * The per-process key of the hand-off, made by lectern's server when it records
 * its first address. Next bundles route code apart from server.ts, so a value
 * held by this module would be two values: the key passes from the server's copy
 * to the routes' copy by lib/process-shared.ts, inside the process. It never
 * travels in a request or a response, nor in the environment (which child processes
 * inherit). Under `next start` no key exists, so no recorded address is ever believed.
 */
const HAND_OFF_KEY = 'client-ip-key';

function handOffKey(create: boolean): string | undefined {
  return create ? shared(HAND_OFF_KEY, () => randomBytes(32).toString('base64url')) : findShared<string>(HAND_OFF_KEY);
}

function proof(address: string, key: string): Buffer {
  return createHmac('sha256', key).update(address).digest();
}

/**
 * Replaces whatever the client sent under CLIENT_IP_HEADER and
 * CLIENT_IP_PROOF_HEADER with the socket's address and its proof.
 */
export function recordClientIp(headers: IncomingHttpHeaders, socketAddress: string | undefined): void {
  delete headers[CLIENT_IP_HEADER];
  delete headers[CLIENT_IP_PROOF_HEADER];
  if (!socketAddress) return;
  headers[CLIENT_IP_HEADER] = socketAddress;
  headers[CLIENT_IP_PROOF_HEADER] = proof(socketAddress, handOffKey(true)!).toString('base64url');
}

/**
 * The header in which lectern's server records the identity of a verified agent (Web Bot Auth:
 * ./web-bot-auth.ts), with its proof beside it under the same key as the address. Any value a
 * client sends under either name is removed before Next sees the request.
 */
export const VERIFIED_AGENT_HEADER = 'x-lectern-verified-agent';
export const VERIFIED_AGENT_PROOF_HEADER = 'x-lectern-verified-agent-proof';
// An agent's proof is made over a text no address can be, so one proof never stands for the other.
const agentProof = (agent: string, key: string) => proof(`agent ${agent}`, key);

/** Replaces whatever the client sent under VERIFIED_AGENT_HEADER and its proof with `agent` (when lectern's server verified one) and its proof. */
export function recordVerifiedAgent(headers: IncomingHttpHeaders, agent: string | undefined): void {
  delete headers[VERIFIED_AGENT_HEADER];
  delete headers[VERIFIED_AGENT_PROOF_HEADER];
  if (!agent) return;
  headers[VERIFIED_AGENT_HEADER] = agent;
  headers[VERIFIED_AGENT_PROOF_HEADER] = agentProof(agent, handOffKey(true)!).toString('base64url');
}

/** The verified agent lectern's server recorded for this request, or undefined (none, or a client's own copy, which fails the proof). */
export function recordedVerifiedAgent(headers: Headers | IncomingHttpHeaders): string | undefined {
  const key = handOffKey(false);
  const read = (name: string) => (headers instanceof Headers ? headers.get(name) : [headers[name]].flat()[0]);
  const agent = read(VERIFIED_AGENT_HEADER);
  const given = Buffer.from(read(VERIFIED_AGENT_PROOF_HEADER) ?? '', 'base64url');
  if (!key || !agent) return undefined;
  const expected = agentProof(agent, key);
  return given.byteLength === expected.byteLength && timingSafeEqual(given, expected) ? agent : undefined;
}

/** The address lectern's server recorded for this request, or undefined when it did not (a client's own copy fails the proof). */
export function recordedClientIp(headers: Headers): string | undefined {
  const key = handOffKey(false);
  const address = parseAddress(headers.get(CLIENT_IP_HEADER) ?? '');
  const given = Buffer.from(headers.get(CLIENT_IP_PROOF_HEADER) ?? '', 'base64url');
  if (!key || !address) return undefined;
  const expected = proof(address, key);
  return given.byteLength === expected.byteLength && timingSafeEqual(given, expected) ? address : undefined;
}

/**
 * An address as proxies write it: bare, IPv4 with a port (`203.0.113.7:5678`),
 * or IPv6 in brackets with or without one (`[2001:db8::1]:443`). Anything
 * else (`unknown`, `999.1.1.1`, a name) is not an address: undefined.
 */
export function parseAddress(entry: string): string | undefined {
  const text = entry.trim();
  const [, bracketed, bracketPort] = /^\[([^\]]*)\](?::(\d{1,5}))?$/.exec(text) ?? [];
  const [, v4, v4Port] = /^([\d.]+):(\d{1,5})$/.exec(text) ?? [];
  const port = bracketPort ?? v4Port;
  if (port !== undefined && Number(port) > 65535) return undefined;
  const address = bracketed ?? v4 ?? text;
  if (bracketed !== undefined && isIP(address) !== 6) return undefined;
  return isIP(address) ? address : undefined;
}

/** The entries of X-Forwarded-For, oldest first. */
function forwardedChain(headers: Headers): string[] {
  return (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/**
 * The first address in the trusted tail of a proxy chain (oldest first, the
 * nearest hop last): with `trustProxy` hops believed, the entry the outermost
 * trusted proxy wrote. Every entry keeps its place, so a trusted proxy's entry
 * is never skipped; an entry that is not an address is never a key: the
 * request counts under the next address toward the server.
 */
function trustedEntry(chain: string[], trustProxy: number): string | undefined {
  for (let index = Math.max(0, chain.length - trustProxy); index < chain.length; index += 1) {
    const address = parseAddress(chain[index]!);
    if (address) return address;
  }
  return undefined;
}

/**
 * The client address of a write, from what can be believed and nothing else:
 * - through lectern's server, the socket address it recorded (with its proof),
 *   or with `trustProxy` hops the right-most untrusted `X-Forwarded-For` entry;
 * - without lectern's server (a platform host, `next start`), only what the
 *   operator declared: the header the platform's edge overwrites
 *   (`clientIpHeader`), or the `X-Forwarded-For` entry `trustProxy` hops back;
 * - otherwise undefined: no shared and no client-chosen key.
 * A client's own x-lectern-client-ip fails the proof, and a forged
 * X-Forwarded-For entry sits beyond the trusted hops.
 */
export function clientAddress(headers: Headers, settings: { trustProxy: number; clientIpHeader?: string }): string | undefined {
  const socket = recordedClientIp(headers);
  if (socket) return settings.trustProxy > 0 ? trustedEntry([...forwardedChain(headers), socket], settings.trustProxy + 1) : socket;
  if (settings.clientIpHeader) return trustedEntry((headers.get(settings.clientIpHeader) ?? '').split(','), 1);
  if (settings.trustProxy > 0) return trustedEntry(forwardedChain(headers), settings.trustProxy);
  return undefined;
}

/** Expands an IPv6 address to its eight 16-bit groups. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0] ?? '';
  const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail].map((group) => Number.parseInt(group, 16));
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * The prefix a limit counts IPv6 clients by unless its route says otherwise: the /56 that
 * providers commonly give one home line (RIPE-690), which holds 256 /64 networks. Counted per
 * /64, a /48 would be 65,536 clients.
 */
export const DEFAULT_IPV6_PREFIX: Ipv6Prefix = 56;

/**
 * The key a client is limited under: an IPv4 address as is (also when written
 * IPv4-mapped), an IPv6 address by its network of `prefix` bits (`2001:db8:1:200::/56`).
 */
export function limitKey(address: string, prefix: Ipv6Prefix = DEFAULT_IPV6_PREFIX): string {
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  const network = groups.slice(0, 4).map((group, index) => {
    const bits = Math.min(16, Math.max(0, prefix - index * 16));
    return bits === 0 ? 0 : group & (0xffff << (16 - bits)) & 0xffff;
  });
  return `${network.map((group) => group.toString(16)).join(':')}::/${prefix}`;
}
