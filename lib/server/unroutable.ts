import { MCP_ALLOW, MCP_PATH } from '../agents/mcp-names';
import { postPaths } from '../routes/manifest';
import { messagePage } from '../http/html';
import { prefersMarkdown } from '../http/negotiate';
import { problem, problemTypes, type ProblemType } from '../http/problem';
import { markdownResponse } from '../http/responses';
import { cacheHeaders } from '../http/cache';

/**
 * Requests lectern answers itself because Next cannot route them: Next answers
 * them with a 500 (a path whose percent-escapes do not decode to UTF-8 throws
 * in its router; a Fetch `Request` cannot carry TRACE or TRACK; other methods
 * on read URLs are below).
 */
export type Unroutable = { problem: Extract<ProblemType, 'invalid-path' | 'method-not-allowed'>; detail: string; allow?: string };

/** Methods the Fetch standard forbids in a `Request` (Next builds one for its proxy and route handlers). */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Routes that take posts only; every other URL of the site is read with GET and HEAD. */
const POST_ONLY = new Set<string>(postPaths);

/** The path of a request target, without its query. */
export function pathOf(target: string): string {
  return target.split('?', 1)[0] ?? '';
}

/**
 * Whether a path decodes: every `%` starts a two-digit hex escape and the
 * escaped bytes are UTF-8 (no overlong forms, no surrogates, no cut-off sequence).
 */
export function pathDecodes(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return true;
  } catch {
    return false;
  }
}

/**
 * A request target in origin form (`/path?query`): an absolute-form target
 * (`http://host/path`, which a server must accept) loses its scheme and
 * authority; anything else (`*`) is returned as it is, and refused below.
 */
export function originForm(target: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (!absolute) return target;
  const rest = target.slice(absolute[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * Why Next cannot take this request, or undefined when it can. Every URL but
 * the write routes is read with GET and HEAD only; another method reaches no
 * Next code (Next answers it on a static file with a 500, and on a dynamic read
 * route it keeps that answer in its cache for the GETs that follow).
 */
export function unroutable(method: string, target: string): Unroutable | undefined {
  const pathname = pathOf(target);
  if (!pathname.startsWith('/')) return { problem: 'invalid-path', detail: 'The request target must be a path starting with /.' };
  if (!pathDecodes(pathname)) {
    return {
      problem: 'invalid-path',
      detail: 'The URL has a malformed percent-encoding: each % must start two hex digits, and the bytes they spell must be UTF-8.',
    };
  }
  const verb = method.toUpperCase();
  const postOnly = POST_ONLY.has(decodeURIComponent(pathname));
  if (FORBIDDEN_METHODS.has(verb) || (!postOnly && verb !== 'GET' && verb !== 'HEAD')) {
    const allow = postOnly ? (decodeURIComponent(pathname) === MCP_PATH ? MCP_ALLOW : 'POST') : 'GET, HEAD';
    return { problem: 'method-not-allowed', detail: `${verb} is not supported; this URL accepts ${allow}.`, allow };
  }
  return undefined;
}

/**
 * The answer to an unroutable request, in the form the client asked for: a
 * problem under /api/, markdown for a `.md` URL or an Accept that ranks
 * markdown first, else a short HTML page.
 */
export function unroutableResponse(refusal: Unroutable, target: string, accept: string | undefined): Response {
  const pathname = pathOf(target);
  const { status, title } = problemTypes[refusal.problem];
  const headers: Record<string, string> = refusal.allow ? { Allow: refusal.allow } : {};
  if (pathname.startsWith('/api/')) return problem(refusal.problem, refusal.detail, { headers });
  if (pathname.endsWith('.md')) return markdownResponse(`# ${title}\n\n${refusal.detail}\n`, { status, cache: 'error', headers });
  // Elsewhere the form follows Accept, as the pages' own errors do.
  headers.Vary = 'Accept';
  if (prefersMarkdown(accept)) return markdownResponse(`# ${title}\n\n${refusal.detail}\n`, { status, cache: 'error', headers });
  const page = messagePage({ title, paragraphs: [refusal.detail], back: '/' });
  return new Response(page, { status, headers: { ...cacheHeaders('error'), ...headers, 'Content-Type': 'text/html; charset=utf-8' } });
}
