import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { HTTP_MESSAGE_SIGNATURES_DIRECTORY } from 'web-bot-auth';

/** Addresses that are not on the public internet: a key directory is never fetched from them (no request to the site's own network). */
const notPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const)
  notPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127],
  ['::ffff:0:0', 96],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  notPublic.addSubnet(network, prefix, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export type DirectoryOptions = {
  /** Tests only: plain HTTP and loopback addresses are allowed too (WEB_BOT_AUTH_LOOPBACK_DIRECTORIES). */
  loopback: boolean;
  /** How long one fetch may take in all, from the lookup to its last byte (a deadline, not an idle timeout). */
  timeoutMs?: number;
  /** The largest directory read; a longer one is no directory. */
  maxBytes?: number;
  clock?: () => number;
};

/** Whether a key directory may be fetched from this address. */
export function directoryAddressAllowed(address: string, options: Pick<DirectoryOptions, 'loopback'>): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (options.loopback && loopback.check(address, family)) return true;
  return isIP(address) !== 0 && !notPublic.check(address, family);
}

/** A key directory's origin, or undefined when the agent names something that cannot be one (not HTTPS, credentials, a path). */
export function directoryOrigin(agent: string, options: Pick<DirectoryOptions, 'loopback'>): string | undefined {
  let url: URL;
  try {
    url = new URL(agent);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && !(options.loopback && url.protocol === 'http:')) return undefined;
  if (url.username || url.password || url.search || url.hash) return undefined;
  return url.origin;
}

/** A DNS lookup that answers only addresses a directory may come from, so the address checked is the address connected to. */
function checkedLookup(options: DirectoryOptions) {
  return (hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    lookup(hostname, { all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      const allowed = addresses.filter(({ address }) => directoryAddressAllowed(address, options));
      if (allowed.length === 0 || allowed.length !== addresses.length) return callback(new Error(`${hostname} is not a public address`));
      if (lookupOptions.all) return callback(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

/** GET `origin`'s key directory: its JSON, or an error (refused address, timeout, not 200, too long, not JSON). */
function fetchDirectory(origin: string, options: DirectoryOptions): Promise<unknown> {
  const url = new URL(HTTP_MESSAGE_SIGNATURES_DIRECTORY, origin);
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(hostname) && !directoryAddressAllowed(hostname, options)) return Promise.reject(new Error(`${hostname} is not a public address`));
  const maxBytes = options.maxBytes ?? 64 * 1024;
  const timeoutMs = options.timeoutMs ?? 2000;
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const settle =
      <T>(done: (value: T) => void) =>
      (value: T) => {
        clearTimeout(deadline);
        done(value);
      };
    const succeed = settle(resolve);
    const fail = settle(reject);
    const request = client.get(
      url,
      {
        lookup: checkedLookup(options) as never,
        headers: { accept: 'application/http-message-signatures-directory+json, application/json' },
      },
      (response) => {
        if (response.statusCode !== 200) {
          request.destroy();
          return fail(new Error(`key directory answered ${response.statusCode}`));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) request.destroy(new Error(`key directory longer than ${maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          try {
            succeed(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch {
            fail(new Error('key directory is not JSON'));
          }
        });
        response.on('error', fail);
      },
    );
    request.on('error', fail);
    // One deadline for the whole fetch: a directory that sends a byte now and then is given up at it too.
    const deadline = setTimeout(() => request.destroy(new Error(`key directory not read within ${timeoutMs} ms`)), timeoutMs);
  });
}

/** The public keys of a directory (`{"keys": [JWK, …]}`); anything else is none. */
function directoryKeys(body: unknown): JsonWebKey[] {
  const keys = (body as { keys?: unknown } | null)?.keys;
  return Array.isArray(keys) ? keys.filter((key): key is JsonWebKey => typeof key === 'object' && key !== null) : [];
}

export type KeyDirectories = {
  /** The keys `origin` publishes, from the cache when fresh; `refresh` asks again when the copy is more than a minute old. */
  keys(origin: string, refresh?: boolean): Promise<JsonWebKey[]>;
};

/** How long a directory is kept, and how long a failed fetch is remembered (so a bad directory is not asked for on every request). */
const KEEP_MS = 60 * 60 * 1000;
const KEEP_FAILED_MS = 60 * 1000;

/** Directories fetched at once, and requests waiting for them: past either, a request naming a directory not kept is not verified. */
const MAX_FETCHES = 16;
const MAX_WAITING = 256;

/**
 * Agents' key directories, fetched over HTTPS from public addresses only (a refused address is
 * a failed fetch), each within `timeoutMs` in all and `maxBytes`, one fetch per origin at a time
 * (every request naming it waits for that one), at most MAX_FETCHES origins at once and
 * MAX_WAITING requests waiting for them (one more gets no keys at once, and nothing is kept for
 * it), kept an hour (a failure a minute) for at most 1,000 origins.
 */
export function createKeyDirectories(options: DirectoryOptions & { maxFetches?: number; maxWaiting?: number }): KeyDirectories {
  const clock = options.clock ?? Date.now;
  const maxFetches = options.maxFetches ?? MAX_FETCHES;
  const maxWaiting = options.maxWaiting ?? MAX_WAITING;
  const cache = new LRUCache<string, { keys: JsonWebKey[]; fetchedAt: number; expiresAt: number }>({ max: 1000 });
  const inFlight = new Map<string, Promise<JsonWebKey[]>>();
  let waiting = 0;
  const fetchKeys = (origin: string): Promise<JsonWebKey[]> => {
    if (waiting >= maxWaiting || (!inFlight.has(origin) && inFlight.size >= maxFetches)) return Promise.resolve([]);
    waiting += 1;
    return startFetch(origin).finally(() => {
      waiting -= 1;
    });
  };
  const startFetch = (origin: string) => {
    const pending =
      inFlight.get(origin) ??
      fetchDirectory(origin, options)
        .then(
          (body) => {
            const keys = directoryKeys(body);
            cache.set(origin, { keys, fetchedAt: clock(), expiresAt: clock() + KEEP_MS });
            return keys;
          },
          () => {
            cache.set(origin, { keys: [], fetchedAt: clock(), expiresAt: clock() + KEEP_FAILED_MS });
            return [];
          },
        )
        .finally(() => inFlight.delete(origin));
    inFlight.set(origin, pending);
    return pending;
  };
  return {
    keys(origin, refresh = false) {
      const kept = cache.get(origin);
      const now = clock();
      if (kept && kept.expiresAt > now && !(refresh && now - kept.fetchedAt > KEEP_FAILED_MS)) return Promise.resolve(kept.keys);
      return fetchKeys(origin);
    },
  };
}
