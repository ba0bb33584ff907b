import type { OutgoingHttpHeader } from 'node:http';
import { carriesContentUsage, CONTENT_USAGE } from '../agents/terms';
import type { Coding } from '../http/accept-encoding';
import { cacheProfiles } from '../http/cache';
import { NEGOTIATED_ON, type Variant } from '../http/negotiate';
import { contentSecurityPolicy, isHtml, securityHeaders } from '../http/security-headers';

/**
 * The head of every response lectern's server sends, decided in one place: the
 * read cache's answers from memory and the responses it passes through from Next
 * both take their final head from `responseHead`.
 */

/** A response head as a list of lower-case names and values. */
export type HeaderList = [string, OutgoingHttpHeader][];

/** Headers Next uses internally; they reveal rewrite targets and say nothing to clients. */
export const INTERNAL_HEADERS = ['x-middleware-rewrite', 'x-nextjs-prerender', 'x-nextjs-stale-time', 'x-nextjs-cache'];

/** Request headers that make Next answer with something other than the page (RSC payloads). */
export const NEXT_ROUTER_HEADERS = ['rsc', 'next-router-prefetch', 'next-router-state-tree', 'next-router-segment-prefetch', 'next-url'];

const CSP = 'content-security-policy';
const NOT_IN_304 = new Set(['content-type', 'content-encoding', 'content-length']);

/** What the head depends on besides the response. */
export type RequestFacts = {
  /** The request reached the site over https (Strict-Transport-Security). */
  https: boolean;
  /** Send a Content-Security-Policy (off in development, where Next evaluates code and injects scripts). */
  csp: boolean;
  /** The variant a negotiated page answers with (lib/http/negotiate.ts), undefined where the path has one answer. */
  variant: Variant | undefined;
  /**
   * A read answered through the read cache: Next's ETag goes (the cache makes its own from
   * the bytes), prerendered pages get the read profile, and only pages vary on Next's router headers.
   */
  read: boolean;
};

/** The copy of a kept body the read cache sends: its coding, validator and length. */
export type Representation = { coding: Coding; etag: string; length: number; /** Compression was tried on the body. */ varyEncoding: boolean };

export type ResponseFacts = {
  status: number;
  /** The head as Next (or lectern) wrote it. */
  headers: HeaderList;
  /** The whole body, uncompressed; undefined when it passes through unread. An HTML page's policy hashes its inline elements. */
  body?: Buffer;
  /** Sent from the read cache: the copy's headers are added (none of the body's on a 304). */
  representation?: Representation;
};

export function headerValue(headers: HeaderList, name: string): string {
  const found = headers.find(([key]) => key === name)?.[1];
  return Array.isArray(found) ? found.join(', ') : found === undefined ? '' : String(found);
}

/** A `Vary` value with `name` in it once (`*` already covers it). */
export function addVary(value: unknown, name: string): string {
  const list = (Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (list.includes('*') || list.some((item) => item.toLowerCase() === name.toLowerCase())) return list.join(', ');
  return [...list, name].join(', ');
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

/**
 * The one `Vary` of both variants of a negotiated URL: Next's router headers (the page answers
 * them with its RSC payload), Accept, Accept-Encoding, in this order. A shared cache keeps one
 * Vary per URL (nginx replaces its stored variants when a response names other headers), so the
 * HTML page and its markdown twin must send the same list or each evicts the other.
 */
export const NEGOTIATED_VARY = ['rsc', 'next-router-state-tree', 'next-router-prefetch', 'next-router-segment-prefetch', NEGOTIATED_ON, 'Accept-Encoding'];

function varyOf(request: RequestFacts, headers: HeaderList, representation: Representation | undefined): string | undefined {
  const current = headerValue(headers, 'vary');
  if (request.variant) {
    // Anything else Next names is kept, after the common list.
    const vary = NEGOTIATED_VARY.reduce(addVary, '');
    const extra = current
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
    const all = extra.reduce(addVary, vary);
    return all === current ? undefined : all;
  }
  let vary = current;
  // Next varies every response on its router headers; only its pages answer them differently.
  if (request.read && !isHtml(headerValue(headers, 'content-type'))) {
    vary = vary
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item && !NEXT_ROUTER_HEADERS.includes(item.toLowerCase()))
      .join(', ');
  }
  if (representation?.varyEncoding) vary = addVary(vary, 'Accept-Encoding');
  return vary === current ? undefined : vary;
}

/**
 * Whether a response's Content-Security-Policy depends on its body: an HTML page
 * without a policy of its own, whose inline elements are hashed. Anything else can
 * have its head decided before the body is read.
 */
export function policyReadsBody(request: Pick<RequestFacts, 'csp'>, status: number, headers: HeaderList): boolean {
  return request.csp && status !== 204 && status !== 304 && !headers.some(([name]) => name === CSP) && hashesBody(headers);
}

/** An HTML body as Next wrote it (not compressed), whose inline elements can be read. */
function hashesBody(headers: HeaderList): boolean {
  return isHtml(headerValue(headers, 'content-type')) && !headers.some(([name]) => name === 'content-encoding');
}

/**
 * The final head of a response: Next's internal headers removed, the read policy,
 * `Vary` (Accept on negotiated pages, Accept-Encoding where copies are kept), the
 * site's terms as `Content-Usage` on content read (pages, markdown, feeds, JSON;
 * lib/agents/terms.ts), the security headers, the Content-Security-Policy (an HTML
 * page's with the hashes of its inline elements), and for a copy from the read
 * cache its coding, ETag and length.
 */
export function responseHead(request: RequestFacts, response: ResponseFacts): HeaderList {
  let headers = response.headers.filter(([name]) => !INTERNAL_HEADERS.includes(name) && !(request.read && name === 'etag'));
  if (request.read) headers = withReadPolicy(headers);
  const vary = varyOf(request, headers, response.representation);
  if (vary !== undefined) headers = [...headers.filter(([name]) => name !== 'vary'), ...(vary ? [['vary', vary] as [string, OutgoingHttpHeader]] : [])];

  if (request.read && carriesContentUsage(headerValue(headers, 'content-type')) && !headers.some(([name]) => name === 'content-usage')) {
    headers = [...headers, ['content-usage', CONTENT_USAGE]];
  }

  const fixed = Object.entries(securityHeaders({ https: request.https })).map(([name, value]): [string, OutgoingHttpHeader] => [name.toLowerCase(), value]);
  const fixedNames = new Set(fixed.map(([name]) => name));
  headers = [...headers.filter(([name]) => !fixedNames.has(name)), ...fixed];
  if (request.csp && !headers.some(([name]) => name === CSP)) {
    const hashed = response.body !== undefined && hashesBody(headers);
    headers.push([CSP, contentSecurityPolicy(headerValue(headers, 'content-type'), hashed ? response.body : undefined)]);
  }

  const copy = response.representation;
  if (!copy) return headers;
  headers.push(...(copy.coding === 'identity' ? [] : [['content-encoding', copy.coding] as [string, OutgoingHttpHeader]]), ['etag', copy.etag]);
  return response.status === 304 ? headers.filter(([name]) => !NOT_IN_304.has(name)) : [...headers, ['content-length', copy.length]];
}
