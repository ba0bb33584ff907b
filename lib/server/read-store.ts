import type { OutgoingHttpHeader } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { Coding } from '../http/accept-encoding';
import type { Variant } from '../http/negotiate';
import type { Copies } from './encodings';
import { headerValue, type HeaderList } from './response-headers';

/**
 * Where the read cache keeps rendered responses, within a budget of bytes. Content
 * changes with a new build or when a post dated ahead goes live (then every entry is
 * stale, and replaced as it is rendered anew: ./read-cache.ts); otherwise an entry is
 * dropped only to make room: the least recently used go first.
 */

/** What an entry holds besides its bodies (its head, up to twelve finished heads, the key), counted against the budget. */
export const ENTRY_OVERHEAD_BYTES = 4096;
const MAX_ENTRIES = 20_000;
export const DEFAULT_MAX_BYTES = 512 * 2 ** 20;

/** A finished head of an entry, by the copy sent, the scheme and whether it answers 304. */
export type HeadKey = `${Coding} ${'http' | 'https'} ${'whole' | 'not-modified'}`;

export type Entry = Copies & {
  status: number;
  /** The head as Next wrote it, less the headers of one connection (the cache sets its own length). */
  headers: HeaderList;
  /** The negotiated variant the entry answers with, undefined where its path has one answer. */
  variant: Variant | undefined;
  /** Compression was tried on the body: the response varies on Accept-Encoding. */
  compressible: boolean;
  /** Finished heads, made on first use, as the flat name/value list `writeHead` takes without copying it. */
  heads: Partial<Record<HeadKey, OutgoingHttpHeader[]>>;
  /** Served by Next from its build output (it says so with `x-nextjs-cache`): the same bytes whatever the query. */
  prerendered: boolean;
  /** The read cache's generation when it was rendered (./read-cache.ts): older than the cache's, it is stale. */
  generation?: number;
};

/** Bytes an entry is counted for: its body, its compressed copies and a fixed allowance for the rest. */
export function sizeOf(entry: Pick<Entry, 'body' | 'gzip' | 'br'>): number {
  return entry.body.length + (entry.gzip?.body.length ?? 0) + (entry.br?.body.length ?? 0) + ENTRY_OVERHEAD_BYTES;
}

/** A response a shared cache may keep: `public` or `s-maxage`, nothing forbidding it, no `Set-Cookie`. */
export function isShareable(entry: Pick<Entry, 'status' | 'headers'>): boolean {
  if (entry.status !== 200) return false;
  const cacheControl = headerValue(entry.headers, 'cache-control').toLowerCase();
  if (headerValue(entry.headers, 'set-cookie')) return false;
  if (/no-store|private|no-cache/.test(cacheControl)) return false;
  return /public|s-maxage/.test(cacheControl);
}

export type ReadStore = {
  get: (key: string) => Entry | undefined;
  /** Whether an entry of this size could be kept at all. */
  fits: (entry: Pick<Entry, 'body' | 'gzip' | 'br'>) => boolean;
  set: (key: string, entry: Entry) => void;
};

/** A store of at most `maxBytes` (every body and copy, and ENTRY_OVERHEAD_BYTES per entry); undefined for 0, which keeps nothing. */
export function createReadStore(maxBytes: number): ReadStore | undefined {
  if (maxBytes <= 0) return undefined;
  const entries = new LRUCache<string, Entry>({ max: MAX_ENTRIES, maxSize: maxBytes, sizeCalculation: sizeOf });
  return {
    get: (key) => entries.get(key),
    fits: (entry) => sizeOf(entry) <= maxBytes,
    set: (key, entry) => void entries.set(key, entry),
  };
}
