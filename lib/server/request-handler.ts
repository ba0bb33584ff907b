import type { IncomingMessage, ServerResponse } from 'node:http';
import { crawlerRefusal, refusesCrawler } from '../agents/terms';
import type { ContentError } from '../content/load';
import type { FediverseReads } from '../fediverse';
import { bodiesInFlight, bodyBytesToHold, hasBody, type BodiesInFlight } from '../http/body';
import { INBOX_BODY_LIMIT } from '../fediverse/paths';
import { agentRoutes, bodyLimit } from '../limits/table';
import { cacheHeaders } from '../http/cache';
import { recordClientIp, recordVerifiedAgent } from '../http/client-ip';
import { isSigned, type AgentVerifier } from '../http/web-bot-auth';
import { problem, problemDetails } from '../http/problem';
import { negotiate, recordsVariants, recordVariant } from '../http/negotiate';
import { sendContentError } from './content-error-page';
import { sendFile, type DownloadReads } from './downloads';
import type { MadeUpReads } from './made-up';
import type { OwnPosts } from './mcp-posts';
import type { NextHandler } from './next-requests';
import { createReadCache, type OwnReads, type PageFill } from './read-cache';
import { NEXT_ROUTER_HEADERS, responseHead, type HeaderList, type RequestFacts } from './response-headers';
import { passThrough, requestIsHttps, type SecurityOptions } from './security';
import { originForm, pathDecodes, unroutable, unroutableResponse } from './unroutable';

/**
 * What Next's client sends to call a server action and to ask for its React
 * Server Components answer. The site defines no server actions, and Next
 * answers a post that looks like one (a form type, or this header) with a 500
 * when it also asks for that answer.
 */
const SERVER_ACTION_HEADERS = ['next-action', ...NEXT_ROUTER_HEADERS];

/** Sends a response lectern made itself, with the headers every response gets. */
async function sendOwn(req: IncomingMessage, res: ServerResponse, response: Response, facts: RequestFacts): Promise<void> {
  const body = Buffer.from(await response.arrayBuffer());
  const headers: HeaderList = [...response.headers, ['content-length', body.length]];
  const head = responseHead(facts, { status: response.status, headers, body });
  res.writeHead(response.status, head.flat());
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Sends the answer a part of lectern makes for a request once it is ready; one that fails is logged under `failure` and its connection closed. */
function sendAnswer(req: IncomingMessage, res: ServerResponse, answer: Promise<Response>, facts: () => RequestFacts, failure: string): void {
  answer
    .then((response) => sendOwn(req, res, response, facts()))
    .catch((error: unknown) => {
      console.error(failure, error);
      res.destroy();
    });
}

/**
 * Answers a request that sends a body to a URL that reads none (every page and
 * read), before Next would buffer it and without reading it; the connection
 * closes, so the rest of the upload is never taken in.
 */
function refuseBody(res: ServerResponse): void {
  const body = JSON.stringify(problemDetails('payload-too-large', 'This URL takes no request body.'));
  res.writeHead(413, {
    ...cacheHeaders('write'),
    'Content-Type': 'application/problem+json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  res.end(body);
}

/**
 * A route that takes posts, spelled with a trailing slash (`/mcp/`), is that route: Next would
 * answer it with a redirect, which a client's POST does not follow.
 */
function postRoute(target: string): string {
  const queryAt = target.indexOf('?');
  const pathname = queryAt === -1 ? target : target.slice(0, queryAt);
  if (pathname.length < 2 || !pathname.endsWith('/') || bodyLimit(pathname.slice(0, -1)) === undefined) return target;
  return `${pathname.slice(0, -1)}${queryAt === -1 ? '' : target.slice(queryAt)}`;
}

export type HandlerOptions = {
  dev?: boolean;
  /** Development: the content folder's problems as it is now, answered instead of any page while there are some. */
  contentError?: () => ContentError | undefined;
  /** True once the server is stopping (./shutdown.ts): /healthz answers 503. */
  stopping?: () => boolean;
  /** Reads answered without Next (the search: ./search-thread.ts), sent as the read cache sends a rendered one. */
  own?: OwnReads;
  /** Posts answered without Next (MCP: ./mcp-posts.ts), with the client address recorded as for Next. */
  posts?: OwnPosts;
  /** Made-up values under a dynamic segment, answered without Next or from one shared answer (./made-up.ts). */
  madeUp?: MadeUpReads;
  /** Download links, checked and their files streamed without Next or the read cache (./downloads.ts). */
  downloads?: DownloadReads;
  /** Training crawlers get 403 on everything but the rules (REFUSE_TRAINING_CRAWLERS; lib/agents/terms.ts). */
  refuseTrainingCrawlers?: boolean;
  /** Web Bot Auth (lib/http/web-bot-auth.ts): the verified agent of a signed request to a route with an agent budget. */
  verifyAgent?: AgentVerifier;
  /** The fediverse's URLs (lib/fediverse/paths.ts), answered by Fedify ahead of everything else but /healthz; a browser on the actor's URL gets the home page. */
  fediverse?: FediverseReads;
  /** What a rendered page gets without a new render (./read-cache.ts, `fill`): a post's reactions from the fediverse. */
  fill?: PageFill;
  /** The bound on request bodies arriving at once (lib/http/body.ts; BODIES_IN_FLIGHT_BYTES unless given). */
  bodies?: BodiesInFlight;
};

/** The paths whose limit counts a verified agent by its identity (lib/limits/table.ts): only there is a signature checked. */
const agentBudgetPaths = new Set<string>(Object.keys(agentRoutes));

/** What /healthz answers while the server stops, so a proxy or orchestrator sends no more. */
/** What a request with a body gets while bodies in flight fill their bound: refused before any of it is read. */
const bodiesBusy = () =>
  problem('overloaded', 'Too many requests are sending bodies right now. Please try again in a few seconds.', {
    cache: 'write',
    headers: { 'Retry-After': '5', Connection: 'close' },
  });

const stoppingHealth = () => problem('service-unavailable', 'This instance is stopping.', { cache: 'live', headers: { 'Retry-After': '5' } });

/**
 * lectern's request handler in front of Next's (`render`):
 * - a route that takes posts answers its path with a trailing slash too;
 * - a body sent to a URL that reads none is refused (413), unread;
 * - a body past the bound on bodies in flight (`options.bodies`, lib/http/body.ts) is refused
 *   (503, Retry-After), unread, before any route sees it; what it held is given back once answered;
 * - a request Next cannot route (a target that is not a path or does not decode,
 *   a method a Fetch `Request` cannot carry, anything but GET and HEAD outside
 *   the write routes) is answered here with a 400 or 405, never reaching Next;
 *   an absolute-form target is taken as its path;
 * - a training crawler (lib/agents/terms.ts) gets 403 on anything but robots.txt, the licence
 *   and llms.txt, before the read cache, so no kept page reaches it;
 * - a GET or HEAD is answered by the read cache: from memory once rendered,
 *   with every header final and computed once per page (no Next on that path);
 *   a read of `options.own` (a search) is answered by lectern the same way;
 * - a signed request to a route with an agent budget (/mcp, /api/search) is verified
 *   first (Web Bot Auth): the identity of an agent whose signature verified is
 *   recorded with its proof (headers no client can set) for the route's limit;
 * - any other request (the write routes) reaches Next with the socket address
 *   recorded as the client IP, with its proof, and
 *   its response gets the same headers on the way out;
 * - no write reaches Next as a server action call (the site has none);
 * - while the server stops, /healthz is a 503.
 */
export type RequestHandler = ((req: IncomingMessage, res: ServerResponse) => void) & {
  /** Every read kept in memory is stale (a post went live: lib/publishing): each is sent while it is rendered anew (./read-cache.ts, `stale`). */
  staleReads: () => void;
  /** Makes one path anew now in place of its kept read (a post went live: lib/publishing); resolves with its status. */
  refreshRead: (path: string) => Promise<number | undefined>;
};

export function createRequestHandler(render: NextHandler, security: SecurityOptions, options: HandlerOptions = {}): RequestHandler {
  const readCache = createReadCache({
    // In development every read is rendered afresh, so edits show on reload.
    maxBytes: options.dev ? 0 : undefined,
    csp: security.csp,
    isHttps: (req) => requestIsHttps(req, security),
    own: options.own,
    madeUp: options.madeUp,
    fill: options.fill,
  });
  /** What the head of a response lectern answers itself, or Next writes without the read cache, depends on. */
  const factsOf = (req: IncomingMessage, variant?: RequestFacts['variant']): RequestFacts => ({
    https: requestIsHttps(req, security),
    csp: security.csp,
    variant,
    read: false,
  });
  const renderWithClientIp: NextHandler = (req, res) => {
    recordClientIp(req.headers, req.socket.remoteAddress);
    render(req, res);
  };
  /** A request past every check: a POST lectern answers itself (MCP), a read of the read cache, or Next. */
  const serve = (req: IncomingMessage, res: ServerResponse, pathname: string): void => {
    if (req.method === 'POST' && options.posts) {
      recordClientIp(req.headers, req.socket.remoteAddress);
      const answer = options.posts(req, pathname);
      if (answer) {
        sendAnswer(req, res, answer, () => factsOf(req), 'request failed');
        return;
      }
    }
    const download = options.downloads?.(req, pathname);
    if (download) {
      download
        .then((answer) => (answer instanceof Response ? sendOwn(req, res, answer, factsOf(req)) : sendFile(req, res, answer, factsOf(req))))
        .catch((error: unknown) => {
          // A client that stops a download closes its connection: that is not a failure of the server.
          if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') console.error('download failed', error);
          res.destroy();
        });
      return;
    }
    if (readCache.handle(req, res, renderWithClientIp)) return;
    const variant = negotiate(pathname, req.headers.accept)?.variant;
    recordVariant(req.headers, variant);
    passThrough(req, res, factsOf(req, variant));
    renderWithClientIp(req, res);
  };
  // Every request this handler hands to Next carries the variant it decided (proxy.ts takes it).
  recordsVariants();
  const bodies = options.bodies ?? bodiesInFlight();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') for (const name of SERVER_ACTION_HEADERS) delete req.headers[name];
    req.url = postRoute(originForm(req.url ?? '/'));
    let pathname = req.url.split('?', 1)[0] ?? '/';
    // A body (to any route: a write route, /mcp, the webhook, an inbox) holds its room until it is answered.
    if (hasBody(req.headers)) {
      const release = bodies.hold(bodyBytesToHold(req.headers, bodyLimit(pathname) ?? INBOX_BODY_LIMIT));
      if (!release) {
        sendOwn(req, res, bodiesBusy(), factsOf(req)).catch(() => res.destroy());
        return;
      }
      res.once('close', release);
    }
    if (pathname === '/healthz' && options.stopping?.()) {
      sendOwn(req, res, stoppingHealth(), factsOf(req)).catch(() => res.destroy());
      return;
    }
    // The fediverse's requests (an inbox takes a body of its own limit, read there) go to Fedify; a path
    // that does not decode is refused below, as everywhere.
    const fediverse = pathDecodes(pathname) ? options.fediverse?.(req, pathname) : undefined;
    if (fediverse === 'home') {
      // A browser on the actor's URL: the home page, as at /.
      req.url = `/${req.url.slice(pathname.length)}`;
      pathname = '/';
    } else if (fediverse) {
      sendAnswer(req, res, fediverse, () => factsOf(req), 'fediverse request failed');
      return;
    }
    if (hasBody(req.headers) && bodyLimit(pathname) === undefined) {
      passThrough(req, res, factsOf(req));
      refuseBody(res);
      return;
    }
    const refusal = unroutable(req.method ?? 'GET', req.url);
    if (refusal) {
      sendOwn(req, res, unroutableResponse(refusal, req.url, req.headers.accept), factsOf(req)).catch((error: unknown) => {
        console.error('request failed', error);
        res.destroy();
      });
      return;
    }
    if (options.refuseTrainingCrawlers && refusesCrawler(req.headers['user-agent'], pathname)) {
      sendOwn(req, res, crawlerRefusal(), factsOf(req)).catch(() => res.destroy());
      return;
    }
    const contentError = options.contentError && !pathname.startsWith('/_next/') ? options.contentError() : undefined;
    if (contentError) {
      passThrough(req, res, factsOf(req));
      sendContentError(req, res, contentError);
      return;
    }
    // Only lectern records a verified agent: whatever a client sent under that name goes first.
    recordVerifiedAgent(req.headers, undefined);
    if (!options.verifyAgent || !agentBudgetPaths.has(pathname) || !isSigned(req.headers)) return serve(req, res, pathname);
    // A signed request to a route with an agent budget: verified first (a body waits in the socket
    // while the key directory is asked); a failure is only "not verified", never an error.
    const url = `${requestIsHttps(req, security) ? 'https' : 'http'}://${req.headers.host ?? ''}${req.url}`;
    options
      .verifyAgent({ method: req.method ?? 'GET', url, headers: req.headers })
      .catch(() => undefined)
      .then((agent) => {
        recordVerifiedAgent(req.headers, agent);
        serve(req, res, pathname);
      });
  };
  return Object.assign(handler, { staleReads: () => readCache.stale(), refreshRead: (path: string) => readCache.refresh(path, render) });
}
