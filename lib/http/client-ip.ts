import type { IncomingHttpHeaders } from 'node:http';

/**
 * The header in which lectern's server records the socket address of the client.
 * Any value a client sends under this name is removed before Next sees the request.
 */
export const CLIENT_IP_HEADER = 'x-lectern-client-ip';

/** Replaces whatever the client sent under CLIENT_IP_HEADER with the socket's address. */
export function recordClientIp(headers: IncomingHttpHeaders, socketAddress: string | undefined): void {
  delete headers[CLIENT_IP_HEADER];
  if (socketAddress) headers[CLIENT_IP_HEADER] = socketAddress;
}

/**
 * The client address of a request that came through lectern's server. With
 * `trustProxy` hops configured, the right-most untrusted `X-Forwarded-For`
 * entry counts; otherwise the header is ignored, so a forged one buys nothing.
 */
export function clientAddress(headers: Headers, trustProxy: number): string | undefined {
  const socket = headers.get(CLIENT_IP_HEADER) ?? undefined;
  if (trustProxy <= 0 || !socket) return socket;
  const forwarded = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const chain = [...forwarded, socket];
  const candidate = chain[Math.max(0, chain.length - 1 - trustProxy)];
  return candidate && isIP(candidate) ? candidate : socket;
}

function isIP(address: string): boolean {
  return /^\d{1,3}(?:\.\d{1,3}){3}$/.test(address) || (address.includes(':') && /^[0-9a-fA-F:.]+$/.test(address));
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
 * The key a client is limited under: an IPv4 address as is (also when written
 * IPv4-mapped), an IPv6 address by its /64, since one subscriber line holds a whole /64.
 */
export function limitKey(address: string | undefined): string {
  if (!address) return 'unknown';
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}
