import { createHash } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { chooseEncoding, type Coding } from '../http/accept-encoding';
import { cacheProfiles } from '../http/cache';
import { prefersMarkdown } from '../http/negotiate';
import { canonicalPath } from './canonical-path';
import { addVaryAccept, applyWriteHeadArgs, INTERNAL_HEADERS, isNegotiatedPath } from './response-headers';

/**
 * HTTP semantics for every read, in one place: lectern's server lets Next render
 * a GET once, then keeps the bytes, headers and a strong ETag in memory and
 * answers every later GET, HEAD and conditional request from there.
 *
 * Only responses that say a shared cache may keep them (`public` or
 * `s-maxage`, no `Set-Cookie`) are kept; everything else passes through with
 * an ETag computed on the way, uncompressed. Content changes only with a new
 * build, so an entry is dropped only to make room: the cache holds at most
 * `maxBytes` (bodies, their brotli and gzip copies and a fixed allowance per entry) and
 * lets the least recently used entries go first.
 *
 * One entry per resource: the key is the path in its one canonical spelling
 * (lib/server/canonical-path.ts), and a URL is rendered in that spelling, so
 * `/blog/%65tags` and `/blog/etags` share their bytes and ETag. A query never
 * makes an entry of its own: a path Next serves from its build output answers
 * every query from its path's entry, and any other URL with a query is rendered
 * each time (some pages read theirs: a confirmation token, a booking to cancel). Concurrent first requests for one key wait for a single render,
 * and a kept body is compressed once, off the event loop, before it is first sent.
 */

/** Request headers that make Next answer with something other than the page (RSC payloads). */
export const NEXT_ROUTER_HEADERS = ['rsc', 'next-router-prefetch', 'next-router-state-tree', 'next-router-segment-prefetch', 'next-url'];
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length']);
const COMPRESS_MIN_BYTES = 1024;
const MAX_ENTRIES = 20_000;
/** What an entry holds besides its bodies (its head, up to twelve finished heads, the key), counted against maxBytes. */
export const ENTRY_OVERHEAD_BYTES = 4096;
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
/**
 * Brotli's best quality (11) for bodies up to this size, quality 5 above it. A copy is made
 * once per page, but the first request waits for it: at quality 11 brotli takes about 60 ms
 * for 43 KB of text and 600 ms for 340 KB, while quality 5 takes about 10 ms for either and
 * is some 5 to 10 % larger. A long list page (thousands of posts) stays fast to make.
 */
const BROTLI_BEST_MAX_BYTES = 128 * 1024;

function brotliOf(body: Buffer): Promise<Buffer> {
  return brotliAsync(body, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: body.length <= BROTLI_BEST_MAX_BYTES ? zlib.BROTLI_MAX_QUALITY : 5,
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

export type HeaderList = [string, OutgoingHttpHeader][];

/** A compressed copy of an entry's body, with an ETag of its own (it is other bytes). */
type Copy = { body: Buffer; etag: string };

type Entry = {
  status: number;
  headers: HeaderList;
  body: Buffer;
  etag: string;
  /** Whether the response varies on Accept-Encoding: a kept body that compression was tried on. */
  compressible: boolean;
  /** The gzip copy, when it is smaller than the body. */
  gzip: Copy | null;
  /** The brotli copy, when it is smaller than the body. */
  br: Copy | null;
  /** Finished heads, made on first use: index = coding (0 identity, 1 gzip, 2 br) + 3 × (https (1) | 304 (2)). */
  heads: OutgoingHttpHeader[][];
  /** Served by Next from its build output (it says so with `x-nextjs-cache`): the same bytes whatever the query. */
  prerendered?: boolean;
};

/** Next's request handler: writes a response for a request. */
type Render = (req: IncomingMessage, res: ServerResponse) => void;

export type ReadCache = {
  /**
   * Takes a GET or HEAD (answering from memory, or rendering it with `render` and
   * keeping the result) and returns true; returns false for any other method.
   */
  handle: (req: IncomingMessage, res: ServerResponse, render: Render) => boolean;
};

function strongEtag(body: Buffer, suffix = ''): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}${suffix}"`;
}

function isCompressible(contentType: string): boolean {
  return /^(text\/|application\/(json|xml|rss\+xml|atom\+xml|feed\+json|linkset\+json|problem\+json|javascript)|image\/svg\+xml)/.test(contentType);
}

/** RFC 9110 §13.1.2: weak comparison, `*`, and a list of tags. */
export function matchesIfNoneMatch(header: string | undefined, etags: string[]): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = new Set(etags.map(bare));
  return header.split(',').some((tag) => wanted.has(bare(tag)));
}

const CODING_INDEX: Record<Coding, number> = { identity: 0, gzip: 1, br: 2 };

/** The copy of an entry to send for a request's Accept-Encoding. */
function codingFor(req: IncomingMessage, entry: Pick<Entry, 'gzip' | 'br'>): Coding {
  if (!entry.gzip && !entry.br) return 'identity';
  return chooseEncoding(req.headers['accept-encoding'], [...(entry.br ? (['br'] as const) : []), ...(entry.gzip ? (['gzip'] as const) : [])]);
}

function copyOf(entry: Pick<Entry, 'body' | 'etag' | 'gzip' | 'br'>, coding: Coding): Copy {
  return (coding === 'identity' ? undefined : entry[coding]) ?? { body: entry.body, etag: entry.etag };
}

/** Every ETag an entry answers to: one per copy. */
function etagsOf(entry: Pick<Entry, 'etag' | 'gzip' | 'br'>): string[] {
  return [entry.etag, ...(entry.gzip ? [entry.gzip.etag] : []), ...(entry.br ? [entry.br.etag] : [])];
}

function headerValue(headers: HeaderList, name: string): string {
  const found = headers.find(([key]) => key === name)?.[1];
  return Array.isArray(found) ? found.join(', ') : found === undefined ? '' : String(found);
}

function isShareable(entry: Pick<Entry, 'headers'>): boolean {
  const cacheControl = headerValue(entry.headers, 'cache-control').toLowerCase();
  if (headerValue(entry.headers, 'set-cookie')) return false;
  if (/no-store|private|no-cache/.test(cacheControl)) return false;
  return /public|s-maxage/.test(cacheControl);
}

function addVary(headers: HeaderList, name: string): HeaderList {
  const current = headerValue(headers, 'vary');
  const list = current.split(',').map((item) => item.trim()).filter(Boolean);
  if (list.some((item) => item.toLowerCase() === name.toLowerCase() || item === '*')) return headers;
  return [...headers.filter(([key]) => key !== 'vary'), ['vary', [...list, name].join(', ')]];
}

/** Request headers whose conditions the cache evaluates itself, against the bytes. */
const CONDITIONAL_HEADERS = ['if-match', 'if-unmodified-since', 'if-none-match', 'if-modified-since', 'if-range'] as const;

/**
 * RFC 9110 §13.2.2, steps 1 and 2: If-Match (strong comparison), else
 * If-Unmodified-Since, on a 2xx representation; false means answer 412.
 */
export function preconditionHolds(req: Pick<IncomingMessage, 'headers'>, entry: Pick<Entry, 'status' | 'etag' | 'gzip' | 'br' | 'headers'>): boolean {
  if (entry.status < 200 || entry.status > 299) return true;
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined) {
    if (ifMatch.trim() === '*') return true;
    const current = etagsOf(entry);
    return ifMatch.split(',').some((tag) => current.includes(tag.trim()));
  }
  const ifUnmodifiedSince = req.headers['if-unmodified-since'];
  if (ifUnmodifiedSince === undefined) return true;
  const since = Date.parse(ifUnmodifiedSince);
  const lastModified = Date.parse(headerValue(entry.headers, 'last-modified'));
  // An invalid date, or no date to compare, leaves the condition unevaluated.
  return Number.isNaN(since) || Number.isNaN(lastModified) || lastModified <= since;
}

function isNotModified(req: IncomingMessage, entry: Entry): boolean {
  if (entry.status !== 200) return false;
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesIfNoneMatch(ifNoneMatch, etagsOf(entry));
  const ifModifiedSince = req.headers['if-modified-since'];
  if (ifModifiedSince === undefined) return false;
  const lastModified = headerValue(entry.headers, 'last-modified');
  return Boolean(lastModified) && Date.parse(lastModified) <= Date.parse(ifModifiedSince);
}

const NOT_IN_304 = new Set(['content-type', 'content-encoding', 'content-length']);

/** The head of one variant of an entry, as the flat name/value list `writeHead` takes without copying it. */
function headOf(entry: Entry, coding: Coding, https: boolean, notModified: boolean, secureHead: SecureHead): OutgoingHttpHeader[] {
  const copy = copyOf(entry, coding);
  let headers = entry.compressible ? addVary(entry.headers, 'Accept-Encoding') : entry.headers;
  headers = [...headers, ...(coding === 'identity' ? [] : [['content-encoding', coding] as [string, OutgoingHttpHeader]]), ['etag', copy.etag]];
  headers = notModified ? headers.filter(([name]) => !NOT_IN_304.has(name)) : [...headers, ['content-length', copy.body.length]];
  return secureHead(headers, https).flat();
}

/** Sends an entry: picks the encoding, answers 304 to a matching validator, no body to HEAD. */
function send(req: IncomingMessage, res: ServerResponse, entry: Entry, options: Required<ReadCacheOptions>): void {
  const coding = codingFor(req, entry);
  const copy = copyOf(entry, coding);
  const https = options.isHttps(req);
  if (!preconditionHolds(req, entry)) {
    res.writeHead(412, options.secureHead([['etag', copy.etag], ['content-length', 0]], https).flat());
    res.end();
    return;
  }
  const notModified = isNotModified(req, entry);
  const index = CODING_INDEX[coding] + 3 * ((https ? 1 : 0) | (notModified ? 2 : 0));
  const head = (entry.heads[index] ??= headOf(entry, coding, https, notModified, options.secureHead));
  res.writeHead(notModified ? 304 : entry.status, head);
  res.end(notModified || req.method === 'HEAD' ? undefined : copy.body);
}

function collectHeaders(res: ServerResponse, fromWriteHead: unknown[]): HeaderList {
  applyWriteHeadArgs(res, fromWriteHead);
  return Object.entries(res.getHeaders())
    .filter(([name, value]) => value !== undefined && !HOP_HEADERS.has(name))
    .map(([name, value]) => [name, value as OutgoingHttpHeader]);
}

/**
 * Holds back what Next writes, then hands the finished response to `done`
 * instead of the socket.
 */
function capture(res: ServerResponse, done: (status: number, headers: HeaderList, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let headArgs: unknown[] = [];
  let status = 200;
  const original = { writeHead: res.writeHead, write: res.write, end: res.end, flushHeaders: res.flushHeaders };
  const toBuffer = (chunk: unknown, encoding?: unknown) =>
    Buffer.isBuffer(chunk) ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk) : Buffer.from(String(chunk), (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding);
  res.writeHead = function (this: ServerResponse, code: number, ...rest: unknown[]) {
    status = code;
    headArgs = rest;
    return this;
  } as typeof res.writeHead;
  res.flushHeaders = () => {};
  res.write = function (chunk: unknown, encoding?: unknown, callback?: unknown) {
    if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
    const cb = typeof encoding === 'function' ? encoding : callback;
    if (typeof cb === 'function') queueMicrotask(() => (cb as () => void)());
    return true;
  } as typeof res.write;
  res.end = function (chunk?: unknown, encoding?: unknown, callback?: unknown) {
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    if (res.statusCode !== 200 && status === 200) status = res.statusCode;
    Object.assign(res, original);
    const headers = collectHeaders(res, headArgs);
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    done(status, headers, Buffer.concat(chunks));
    const cb = [chunk, encoding, callback].find((arg) => typeof arg === 'function');
    if (typeof cb === 'function') queueMicrotask(() => (cb as () => void)());
    return res;
  } as typeof res.end;
}

/**
 * Next marks prerendered pages `s-maxage=31536000`: a CDN would keep a page for a
 * year after the next deploy. Pages get the same read profile as every other read.
 */
function withReadPolicy(headers: HeaderList): HeaderList {
  const cacheControl = headerValue(headers, 'cache-control');
  if (!/^s-maxage=\d+(, stale-while-revalidate(=\d+)?)?$/.test(cacheControl)) return headers;
  const read: Record<string, string> = cacheProfiles.read;
  const names = new Set(Object.keys(read).map((name) => name.toLowerCase()));
  return [...headers.filter(([name]) => !names.has(name)), ...Object.entries(read).map(([name, value]) => [name.toLowerCase(), value] as [string, string])];
}

/** A response head finished for one scheme: the security headers (lib/server/security.ts). */
export type SecureHead = (headers: HeaderList, https: boolean) => HeaderList;

export type ReadCacheOptions = {
  /** Last changes to the head of a rendered response, made once before it is kept (the page's Content-Security-Policy). */
  finishHeaders?: (headers: HeaderList, body: Buffer) => HeaderList;
  /** Whether a request came over https (decides Strict-Transport-Security). */
  isHttps?: (req: IncomingMessage) => boolean;
  /** Headers every response carries, added once per entry and scheme. */
  secureHead?: SecureHead;
  /**
   * Bytes kept at most: every body, its gzip and brotli copies and ENTRY_OVERHEAD_BYTES per entry. Past it the
   * least recently used entries go; 0 keeps nothing (every read is rendered).
   */
  maxBytes?: number;
};

const DEFAULT_MAX_BYTES = 512 * 2 ** 20;

/**
 * What a rendered response keeps of its head: no hop-by-hop or Next-internal headers,
 * no ETag (the cache makes its own, from the bytes), `Vary: Accept` where the URL negotiates.
 */
function keptHeaders(raw: HeaderList, pathname: string): HeaderList {
  const headers = withReadPolicy(raw.filter(([name]) => name !== 'etag' && !INTERNAL_HEADERS.includes(name)));
  let vary = headerValue(headers, 'vary');
  // Next varies every response on its router headers; only its pages answer them differently.
  if (!/^text\/html\b/i.test(headerValue(headers, 'content-type'))) {
    vary = vary
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item && !NEXT_ROUTER_HEADERS.includes(item.toLowerCase()))
      .join(', ');
  }
  if (isNegotiatedPath(pathname)) vary = addVaryAccept(vary);
  return [...headers.filter(([name]) => name !== 'vary'), ...(vary ? [['vary', vary] as [string, OutgoingHttpHeader]] : [])];
}

/** Bytes an entry is counted for: its body, its compressed copies and a fixed allowance for the rest. */
function sizeOf(entry: Entry): number {
  return entry.body.length + (entry.gzip?.body.length ?? 0) + (entry.br?.body.length ?? 0) + ENTRY_OVERHEAD_BYTES;
}

/**
 * Renders a GET or HEAD as a plain GET (a HEAD gets the same headers and ETag as its GET,
 * and the validators are checked here, against the bytes, not by Next), and hands the
 * finished response to `done`, uncompressed, with the request as it came.
 */
function renderEntry(req: IncomingMessage, res: ServerResponse, render: Render, settings: Required<ReadCacheOptions>, done: (entry: Entry) => void): void {
  const method = req.method;
  const conditional = Object.fromEntries(CONDITIONAL_HEADERS.map((name) => [name, req.headers[name]]));
  req.method = 'GET';
  // Ranges are not served (every read is whole), so If-Range goes with Range.
  for (const name of [...CONDITIONAL_HEADERS, 'range']) delete req.headers[name];
  capture(res, (status, rawHeaders, body) => {
    req.method = method;
    for (const [name, value] of Object.entries(conditional)) if (value !== undefined) req.headers[name] = value;
    const headers = settings.finishHeaders(keptHeaders(rawHeaders, (req.url ?? '/').split('?', 1)[0] ?? '/'), body);
    const prerendered = rawHeaders.some(([name]) => name === 'x-nextjs-cache');
    done({ status, headers, body, etag: strongEtag(body), compressible: false, gzip: null, br: null, heads: [], prerendered });
  });
  render(req, res);
}

/** Answers with a rendered response: a redirect as it is, anything else by `send`. */
function answer(req: IncomingMessage, res: ServerResponse, entry: Entry, settings: Required<ReadCacheOptions>): void {
  if (entry.status >= 300 && entry.status < 400) {
    // A redirect carries no representation worth a validator.
    res.writeHead(entry.status, settings.secureHead([...entry.headers, ['content-length', entry.body.length]], settings.isHttps(req)).flat());
    res.end(req.method === 'HEAD' ? undefined : entry.body);
    return;
  }
  send(req, res, entry, settings);
}

/** A request answered by rendering it, kept nowhere: identity, so no client makes the server compress at will. */
function pass(req: IncomingMessage, res: ServerResponse, render: Render, settings: Required<ReadCacheOptions>): void {
  renderEntry(req, res, render, settings, (entry) => answer(req, res, entry, settings));
}

/** Where a GET or HEAD is answered from: its key in the cache and the path it is rendered as. */
type Target = { key: string; path: string; query?: string };

export function createReadCache(options: ReadCacheOptions = {}): ReadCache {
  const settings: Required<ReadCacheOptions> = {
    finishHeaders: options.finishHeaders ?? ((headers) => headers),
    isHttps: options.isHttps ?? (() => false),
    secureHead: options.secureHead ?? ((headers) => headers),
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
  };
  const entries = settings.maxBytes > 0 ? new LRUCache<string, Entry>({ max: MAX_ENTRIES, maxSize: settings.maxBytes, sizeCalculation: sizeOf }) : undefined;
  /** Renders under way, by key: a request for a key being rendered waits for that render. */
  const rendering = new Map<string, Promise<Entry | undefined>>();

  function targetOf(req: IncomingMessage): Target | undefined {
    const url = req.url ?? '/';
    for (const name of NEXT_ROUTER_HEADERS) if (req.headers[name] !== undefined) return undefined;
    const queryAt = url.indexOf('?');
    const path = canonicalPath(queryAt === -1 ? url : url.slice(0, queryAt));
    if (path === undefined || (path.startsWith('/_next/') && !path.startsWith('/_next/static/'))) return undefined;
    // One entry per path, and per Accept variant where the path negotiates.
    const key = isNegotiatedPath(path) ? `${path} ${prefersMarkdown(req.headers.accept) ? 'markdown' : 'html'}` : path;
    return queryAt === -1 ? { key, path } : { key, path, query: url.slice(queryAt) };
  }

  /**
   * A rendered response made ready to share: compressed once (zlib's thread pool, not the event
   * loop) and kept, as long as it fits. Undefined when it may not be shared.
   */
  async function keep(cache: LRUCache<string, Entry>, key: string, entry: Entry): Promise<Entry | undefined> {
    if (entry.status !== 200 || !isShareable(entry)) return undefined;
    if (sizeOf(entry) > settings.maxBytes) return entry;
    if (isCompressible(headerValue(entry.headers, 'content-type')) && entry.body.length >= COMPRESS_MIN_BYTES) {
      const [zipped, brotli] = await Promise.all([gzipAsync(entry.body), brotliOf(entry.body)]);
      entry.compressible = true;
      if (zipped.length < entry.body.length) entry.gzip = { body: zipped, etag: strongEtag(entry.body, '-gz') };
      if (brotli.length < entry.body.length) entry.br = { body: brotli, etag: strongEtag(entry.body, '-br') };
    }
    cache.set(key, entry);
    return entry;
  }

  return {
    handle(req, res, render) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const target = entries ? targetOf(req) : undefined;
      if (!entries || !target) {
        pass(req, res, render, settings);
        return true;
      }
      if (target.query !== undefined) {
        // A query never makes an entry of its own, so no client can grow the cache with queries.
        // Some pages read theirs (a confirmation token, a booking to cancel) and are rendered each
        // time; a path Next serves from its build output ignores the query and shares its entry.
        const kept = entries.get(target.key);
        if (kept?.prerendered) {
          send(req, res, kept, settings);
          return true;
        }
        req.url = `${target.path}${target.query}`;
        renderEntry(req, res, render, settings, (entry) => {
          if (!entry.prerendered) return answer(req, res, entry, settings);
          keep(entries, target.key, entry).then(
            (shared) => answer(req, res, shared ?? entry, settings),
            () => answer(req, res, entry, settings),
          );
        });
        return true;
      }
      // Rendered in its canonical spelling, so every spelling gets the same bytes.
      req.url = target.path;
      const cached = entries.get(target.key);
      if (cached) {
        send(req, res, cached, settings);
        return true;
      }
      const pending = rendering.get(target.key);
      if (pending) {
        void pending.then((entry) => (entry ? send(req, res, entry, settings) : pass(req, res, render, settings)));
        return true;
      }
      const flight = new Promise<Entry | undefined>((resolve) => {
        // Requests waiting on a render whose client went away first render for themselves.
        res.once('close', () => resolve(undefined));
        renderEntry(req, res, render, settings, (entry) => {
          keep(entries, target.key, entry).then(
            (shared) => {
              answer(req, res, shared ?? entry, settings);
              resolve(shared);
            },
            (error: unknown) => {
              console.error('read cache: compressing a response failed', error);
              answer(req, res, entry, settings);
              resolve(undefined);
            },
          );
        });
      });
      rendering.set(target.key, flight);
      void flight.then(() => rendering.delete(target.key));
      return true;
    },
  };
}
