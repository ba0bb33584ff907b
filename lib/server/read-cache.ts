import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { inject } from 'light-my-request';
import { negotiate, recordVariant, type Variant } from '../http/negotiate';
import { canonicalPath } from './canonical-path';
import { captureResponse } from './capture';
import { CONDITIONAL_HEADERS, isNotModified, preconditionHolds } from './conditional-get';
import { codingFor, compressedCopies, copyOf, strongEtag, triesCompression } from './encodings';
import { createReadStore, DEFAULT_MAX_BYTES, isShareable, type Entry, type HeadKey, type ReadStore } from './read-store';
import type { MadeUpAnswer, MadeUpReads } from './made-up';
import type { NextHandler } from './next-requests';
import { headerValue, NEXT_ROUTER_HEADERS, responseHead, type RequestFacts } from './response-headers';

/**
 * HTTP semantics for every read, in one place: lectern's server lets Next render
 * a GET once, then keeps the bytes, headers and a strong ETag in memory
 * (lib/server/read-store.ts) and answers every later GET, HEAD and conditional
 * request (lib/server/conditional-get.ts) from there, compressed
 * (lib/server/encodings.ts), with the head of lib/server/response-headers.ts.
 *
 * Only responses that say a shared cache may keep them (`public` or
 * `s-maxage`, no `Set-Cookie`) are kept; everything else passes through with
 * an ETag computed on the way, uncompressed.
 *
 * One entry per resource: the key is the path in its one canonical spelling
 * (lib/server/canonical-path.ts) and, where the path negotiates, its variant; a URL is
 * rendered in that spelling, so `/blog/%65tags` and `/blog/etags` share their bytes and
 * ETag. A query never makes an entry of its own: a path Next serves from its build output
 * answers every query from its path's entry, and any other URL with a query is rendered
 * each time (some pages read theirs: a confirmation token, a booking to cancel). Concurrent
 * first requests for one key wait for a single render, and a kept body is compressed
 * once, off the event loop, before it is first sent.
 */

/**
 * How long after a post went live a stale response is still sent while it is rendered anew (`stale`).
 * Made anew one at a time, the outputs of a site of 1,000 posts took a few seconds. A stale response
 * goes out with the Cache-Control every read has (the same whatever is scheduled), so a cache that
 * takes one keeps it as long as any: the shorter this is, the sooner after a post's time every cache
 * has it (README, "Scheduling a post"). Past it, a stale response is rendered anew before it is sent.
 */
export const STALE_FOR_MS = 10_000;

/** Headers of one connection: the cache sends its own length, and Node its own date and framing. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length']);

/** Next's request handler: writes a response for a request. */

export type ReadCache = {
  /**
   * Takes a GET or HEAD (answering from memory, or rendering it with `render` and
   * keeping the result) and returns true; returns false for any other method.
   */
  handle: (req: IncomingMessage, res: ServerResponse, render: NextHandler) => boolean;
  /**
   * What every kept response was rendered from changed (a post went live): each is stale. For
   * STALE_FOR_MS a stale response is still sent, and its first request has it rendered anew in the
   * background, one render at a time (the response of before, then the new one, as a cache with
   * `stale-while-revalidate` does), so the minute a post goes live holds no reader up behind a
   * render; after that a stale response is rendered anew before it is sent. A render under way when
   * it is called is sent to its own request but not kept, and later requests do not wait for it.
   */
  stale: () => void;
  /**
   * Renders one path anew now (as a request with no Accept asks for it) and keeps it in place of its
   * copy: a post went live, and its readers are answered from the copy of before until then, never
   * waiting for this render. Resolves with its status (undefined when nothing is kept).
   */
  refresh: (path: string, render: NextHandler) => Promise<number | undefined>;
};

export type ReadCacheOptions = {
  /** Whether a request came over https (decides Strict-Transport-Security). */
  isHttps?: (req: IncomingMessage) => boolean;
  /** Send a Content-Security-Policy (an HTML page's lists the hashes of its inline elements, computed once per head). */
  csp?: boolean;
  /**
   * Bytes kept at most: every body, its gzip and brotli copies and ENTRY_OVERHEAD_BYTES per entry. Past it the
   * least recently used entries go; 0 keeps nothing (every read is rendered).
   */
  maxBytes?: number;
  /**
   * Reads lectern answers itself instead of rendering them: the response for a path (in its
   * canonical spelling) and query, or undefined to render it. Such an answer is kept nowhere and
   * sent as a rendered one is (validators, HEAD, head); if it fails, the read is rendered.
   */
  own?: OwnReads;
  /**
   * Made-up values under a dynamic segment (./made-up.ts): answered without Next, or from the one
   * rendered answer they share, kept until STALE_FOR_MS after `stale` (never one entry per value).
   */
  madeUp?: MadeUpReads;
  /** The clock stale responses are timed by, in milliseconds (`stale`, STALE_FOR_MS): performance.now() unless a test sets one. */
  now?: () => number;
  /**
   * Puts into a rendered HTML page (status 200) what changes without a new render: a post's reactions
   * from the fediverse (lib/fediverse/reactions-page.ts). Applied before the body is kept, so its
   * ETag and compressed copies are of the filled page; a change is shown by `refresh` of its path.
   */
  fill?: PageFill;
};

/** A rendered page's HTML, by its path, with what `fill` adds. */
export type PageFill = (path: string, body: Buffer) => Buffer;

/** The response for a read lectern answers itself, by path (canonical spelling) and query string (with its `?`, or empty), and the request's headers. */
export type OwnReads = (path: string, query: string, headers: IncomingHttpHeaders) => Promise<Response> | undefined;

type Settings = Required<Omit<ReadCacheOptions, 'maxBytes' | 'own' | 'madeUp' | 'now'>>;

/** Where a GET or HEAD is answered from: its key in the cache, the path it is rendered as, and its variant. */
type Target = { key: string; path: string; query?: string; variant: Variant | undefined };

function factsOf(req: IncomingMessage, entry: Pick<Entry, 'variant'>, settings: Settings): RequestFacts {
  return { https: settings.isHttps(req), csp: settings.csp, variant: entry.variant, read: true };
}

/** Sends an entry: picks the encoding, answers 412 or 304 to the validators, no body to HEAD. */
function send(req: IncomingMessage, res: ServerResponse, entry: Entry, settings: Settings): void {
  const coding = codingFor(req, entry);
  const copy = copyOf(entry, coding);
  const facts = factsOf(req, entry, settings);
  if (!preconditionHolds(req, entry)) {
    // A 412 carries the validator it was checked against and nothing else of the entry.
    const failed = responseHead(
      { ...facts, variant: undefined },
      { status: 412, headers: [], representation: { coding: 'identity', etag: copy.etag, length: 0, varyEncoding: false } },
    );
    res.writeHead(412, failed.flat());
    res.end();
    return;
  }
  const notModified = isNotModified(req, entry, copy.etag);
  const status = notModified ? 304 : entry.status;
  const key: HeadKey = `${coding} ${facts.https ? 'https' : 'http'} ${notModified ? 'not-modified' : 'whole'}`;
  const head = (entry.heads[key] ??= responseHead(facts, {
    status,
    headers: entry.headers,
    body: entry.body,
    representation: { coding, etag: copy.etag, length: copy.body.length, varyEncoding: entry.compressible },
  }).flat());
  res.writeHead(status, head);
  res.end(notModified || req.method === 'HEAD' ? undefined : copy.body);
}

/** Answers with a rendered response: a redirect as it is (it carries no representation worth a validator), anything else by `send`. */
function answer(req: IncomingMessage, res: ServerResponse, entry: Entry, settings: Settings): void {
  if (entry.status < 300 || entry.status >= 400) return send(req, res, entry, settings);
  const head = responseHead(factsOf(req, entry, settings), {
    status: entry.status,
    headers: [...entry.headers, ['content-length', entry.body.length]],
    body: entry.body,
  });
  res.writeHead(entry.status, head.flat());
  res.end(req.method === 'HEAD' ? undefined : entry.body);
}

/**
 * Renders a GET or HEAD as a plain GET (a HEAD gets the same headers and ETag as its GET,
 * and the validators are checked here, against the bytes, not by Next), and hands the
 * finished response to `done`, uncompressed, with the request as it came. The variant it is
 * kept under goes to Next with the request (lib/http/negotiate.ts: `recordVariant`), so
 * proxy.ts routes by the same decision and makes none of its own.
 */
function renderEntry(
  req: IncomingMessage,
  res: ServerResponse,
  render: NextHandler,
  variant: Variant | undefined,
  fill: PageFill,
  done: (entry: Entry) => void,
): void {
  const method = req.method;
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  const conditional = Object.fromEntries(CONDITIONAL_HEADERS.map((name) => [name, req.headers[name]]));
  req.method = 'GET';
  recordVariant(req.headers, variant);
  // Ranges are not served (every read is whole), so If-Range goes with Range.
  for (const name of [...CONDITIONAL_HEADERS, 'range']) delete req.headers[name];
  captureResponse(res, {
    onHead: () => undefined,
    onEnd: ({ status, headers }, body) => {
      req.method = method;
      for (const [name, value] of Object.entries(conditional)) if (value !== undefined) req.headers[name] = value;
      const prerendered = headers.some(([name]) => name === 'x-nextjs-cache');
      const kept = headers.filter(([name]) => !HOP_HEADERS.has(name));
      const filled = status === 200 && /^text\/html/i.test(headerValue(kept, 'content-type')) ? fill(path, body) : body;
      done({ status, headers: kept, body: filled, etag: strongEtag(filled), gzip: null, br: null, compressible: false, heads: {}, variant, prerendered });
    },
  });
  render(req, res);
}

/** A response lectern made itself, as an entry, like a rendered one: its own validator, not kept. */
async function entryOf(response: Response, variant: Variant | undefined): Promise<Entry> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: Entry['headers'] = [...response.headers].filter(([name]) => !HOP_HEADERS.has(name));
  return { status: response.status, headers, body, etag: strongEtag(body), gzip: null, br: null, compressible: false, heads: {}, variant, prerendered: false };
}

/** A request answered by rendering it, kept nowhere: identity, so no client makes the server compress at will. */
function pass(req: IncomingMessage, res: ServerResponse, render: NextHandler, settings: Settings): void {
  const pathname = (req.url ?? '/').split('?', 1)[0] ?? '/';
  renderEntry(req, res, render, negotiate(pathname, req.headers.accept)?.variant, settings.fill, (entry) => answer(req, res, entry, settings));
}

function targetOf(req: Pick<IncomingMessage, 'url' | 'headers'>): Target | undefined {
  const url = req.url ?? '/';
  for (const name of NEXT_ROUTER_HEADERS) if (req.headers[name] !== undefined) return undefined;
  const queryAt = url.indexOf('?');
  const path = canonicalPath(queryAt === -1 ? url : url.slice(0, queryAt));
  if (path === undefined || (path.startsWith('/_next/') && !path.startsWith('/_next/static/'))) return undefined;
  // One entry per path, and per variant where the path negotiates.
  const variant = negotiate(path, req.headers.accept)?.variant;
  const key = variant ? `${path} ${variant}` : path;
  return queryAt === -1 ? { key, path, variant } : { key, path, variant, query: url.slice(queryAt) };
}

/**
 * A rendered response made ready to share: compressed once (zlib's thread pool, not the event
 * loop) and kept, as long as it fits. Undefined when it may not be shared.
 */
async function keep(store: ReadStore, key: string, entry: Entry, current: () => boolean = () => true): Promise<Entry | undefined> {
  if (!isShareable(entry)) return undefined;
  if (!store.fits(entry)) return entry;
  if (triesCompression(headerValue(entry.headers, 'content-type'), entry.body)) {
    Object.assign(entry, await compressedCopies(entry.body), { compressible: true });
  }
  if (current()) store.set(key, entry);
  return entry;
}

export function createReadCache(options: ReadCacheOptions = {}): ReadCache {
  const settings: Settings = {
    isHttps: options.isHttps ?? (() => false),
    csp: options.csp ?? false,
    fill: options.fill ?? ((_path, body) => body),
  };
  const store = createReadStore(options.maxBytes ?? DEFAULT_MAX_BYTES);
  /** Renders under way, by key: a request for a key being rendered waits for that render. */
  let rendering = new Map<string, Promise<Entry | undefined>>();
  /** Counts the times every entry went stale: a render started before the last one is not kept. */
  let generation = 0;
  /** The rendered answers made-up values share (Next's not-found page, by what the proxy adds to it): a few at most. */
  const shared = new Map<string, Entry>();
  const now = options.now ?? (() => performance.now());
  /** When the entries last went stale (`stale`), by `now`. */
  let staleSince = -Infinity;
  /** Stale entries waiting to be rendered anew, by key, one at a time, in the order they were asked for. */
  const refreshes = new Map<string, { target: Target; accept: string | undefined }>();
  let refreshing = false;

  /**
   * Renders a target anew off any request (a GET of its path, made in the process) and keeps it as a
   * read's, replacing any copy; requests for its key wait for it as for any render. Resolves with
   * the entry (undefined when it could not be rendered or kept) and its status.
   */
  function renderAnew(render: NextHandler, key: string, target: Target, accept: string | undefined): Promise<{ entry?: Entry; status?: number }> {
    const started = generation;
    const flights = rendering;
    let status: number | undefined;
    const flight = new Promise<Entry | undefined>((resolve) => {
      void inject(
        (req, res) =>
          renderEntry(req, res, render, target.variant, settings.fill, (entry) => {
            status = entry.status;
            res.end();
            keep(store!, key, Object.assign(entry, { generation: started }), () => started === generation).then(resolve, () => resolve(undefined));
          }),
        { method: 'GET', url: target.path, headers: accept === undefined ? {} : { accept } },
      ).catch(() => resolve(undefined));
    });
    flights.set(key, flight);
    return flight.then((entry) => {
      if (flights.get(key) === flight) flights.delete(key);
      return { entry, status };
    });
  }

  /** Renders the waiting stale entries anew one after the other (`renderAnew`). */
  async function refreshStale(render: NextHandler): Promise<void> {
    if (refreshing) return;
    refreshing = true;
    try {
      for (const [key, { target, accept }] of refreshes) {
        refreshes.delete(key);
        if (rendering.has(key) || (store?.get(key)?.generation ?? generation) === generation) continue;
        await renderAnew(render, key, target, accept);
      }
    } finally {
      refreshing = false;
    }
  }

  /** Answers a made-up value from the answer its kind shares, rendered by the first of them. */
  function answerMadeUp(req: IncomingMessage, res: ServerResponse, render: NextHandler, target: Target, madeUp: MadeUpAnswer): void {
    const kept = shared.get(madeUp.key);
    // Kept while a post's going live is under way (`stale`): a URL of that post is still answered as
    // made up then (lib/publishing/on-server.ts, `readsAt`), and rendering it would make the post.
    if (kept && (kept.generation === generation || now() - staleSince < STALE_FOR_MS)) return send(req, res, kept, settings);
    const started = generation;
    req.url = target.path;
    renderEntry(req, res, render, target.variant, settings.fill, (entry) => {
      if (started === generation && entry.status === 404) shared.set(madeUp.key, Object.assign(entry, { generation: started }));
      answer(req, res, entry, settings);
    });
  }

  return {
    stale() {
      generation++;
      staleSince = now();
      rendering = new Map();
      refreshes.clear();
    },
    async refresh(path, render) {
      const target = targetOf({ url: path, headers: {} });
      if (!store || !target || target.query !== undefined) return undefined;
      const pending = rendering.get(target.key);
      if (pending) await pending;
      return (await renderAnew(render, target.key, target, undefined)).status;
    },
    handle(req, res, render) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const target = store ? targetOf(req) : undefined;
      if (!store || !target) {
        pass(req, res, render, settings);
        return true;
      }
      const own = options.own?.(target.path, target.query ?? '', req.headers);
      if (own) {
        own
          .then((response) => entryOf(response, target.variant))
          .then(
            (entry) => answer(req, res, entry, settings),
            (error: unknown) => {
              console.error(`read cache: ${target.path} could not be answered without Next; rendering it`, error);
              req.url = `${target.path}${target.query ?? ''}`;
              pass(req, res, render, settings);
            },
          );
        return true;
      }
      const madeUp = options.madeUp?.(target.path, target.variant);
      if (madeUp) {
        answerMadeUp(req, res, render, target, madeUp);
        return true;
      }
      if (target.query !== undefined) {
        // A query never makes an entry of its own, so no client can grow the cache with queries.
        // Some pages read theirs (a confirmation token, a booking to cancel) and are rendered each
        // time; a path Next serves from its build output ignores the query and shares its entry.
        const kept = store.get(target.key);
        if (kept?.prerendered && kept.generation === generation) {
          send(req, res, kept, settings);
          return true;
        }
        req.url = `${target.path}${target.query}`;
        const started = generation;
        renderEntry(req, res, render, target.variant, settings.fill, (entry) => {
          if (!entry.prerendered) return answer(req, res, entry, settings);
          keep(store, target.key, Object.assign(entry, { generation: started }), () => started === generation).then(
            (shared) => answer(req, res, shared ?? entry, settings),
            () => answer(req, res, entry, settings),
          );
        });
        return true;
      }
      // Rendered in its canonical spelling, so every spelling gets the same bytes.
      req.url = target.path;
      const cached = store.get(target.key);
      if (cached && (cached.generation ?? generation) === generation) {
        send(req, res, cached, settings);
        return true;
      }
      if (cached && now() - staleSince < STALE_FOR_MS) {
        // Stale since a post went live: sent while it is rendered anew (`stale`).
        send(req, res, cached, settings);
        if (!refreshes.has(target.key) && !rendering.has(target.key)) refreshes.set(target.key, { target, accept: req.headers.accept });
        void refreshStale(render);
        return true;
      }
      const pending = rendering.get(target.key);
      if (pending) {
        void pending.then((entry) => (entry ? send(req, res, entry, settings) : pass(req, res, render, settings)));
        return true;
      }
      const started = generation;
      const flights = rendering;
      const flight = new Promise<Entry | undefined>((resolve) => {
        // Requests waiting on a render whose client went away first render for themselves.
        res.once('close', () => resolve(undefined));
        renderEntry(req, res, render, target.variant, settings.fill, (entry) => {
          keep(store, target.key, Object.assign(entry, { generation: started }), () => started === generation).then(
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
      flights.set(target.key, flight);
      void flight.then(() => flights.delete(target.key));
      return true;
    },
  };
}
