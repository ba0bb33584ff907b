import { cacheHeaders, type CacheProfile } from './cache';
import { carriesContentUsage, CONTENT_SIGNAL, CONTENT_USAGE } from '../agents/terms';
import { estimateTokens } from '../agents/tokens';

type Options = {
  status?: number;
  headers?: Record<string, string>;
  cache?: CacheProfile;
  /** When the content last changed (epoch ms): a read's `Last-Modified` (the build's moment for what only a build changes). An answer to a write has none. */
  lastModified?: number;
  /** Adds the Content-Signal header (markdown and agent files). */
  signal?: boolean;
};

function respond(body: string, contentType: string, options: Options): Response {
  const { status = 200, headers = {}, cache = 'read', lastModified, signal = false } = options;
  const all: Record<string, string> = { 'Content-Type': contentType, ...cacheHeaders(cache) };
  if (status === 200 && lastModified !== undefined) all['Last-Modified'] = new Date(lastModified).toUTCString();
  if (signal) all['Content-Signal'] = CONTENT_SIGNAL;
  if (carriesContentUsage(contentType)) all['Content-Usage'] = CONTENT_USAGE;
  return new Response(body, { status, headers: { ...all, ...headers } });
}

/**
 * Markdown, with the site's terms and, on a 200, `X-Markdown-Tokens`: an estimate of its length
 * in tokens (lib/agents/tokens.ts), so an agent can budget before it reads. Computed here, once
 * per body: a static route runs this at build, and every later copy is served from memory.
 */
export function markdownResponse(body: string, options: Options = {}): Response {
  const tokens: Record<string, string> = (options.status ?? 200) === 200 ? { 'X-Markdown-Tokens': String(estimateTokens(body)) } : {};
  return respond(body, 'text/markdown; charset=utf-8', { signal: true, ...options, headers: { ...tokens, ...options.headers } });
}

export function textResponse(body: string, options: Options = {}): Response {
  return respond(body, 'text/plain; charset=utf-8', options);
}

export function jsonResponse(body: unknown, options: Options & { contentType?: string } = {}): Response {
  return respond(JSON.stringify(body), options.contentType ?? 'application/json; charset=utf-8', options);
}

export function xmlResponse(body: string, contentType: string, options: Options = {}): Response {
  return respond(body, `${contentType}; charset=utf-8`, options);
}

/** A feed already serialized (RSS, Atom or JSON Feed), as its media type in UTF-8. */
export function feedResponse(body: string, contentType: string, options: Options = {}): Response {
  return respond(body, `${contentType}; charset=utf-8`, options);
}

/**
 * The short markdown answer for a `.md` URL or negotiated request that finds nothing: the same
 * bytes whatever was asked, so a value that does not exist yet (a scheduled post's slug or tag)
 * cannot be told from a made-up one, and no answer is made per value.
 */
export function markdownNotFound(): Response {
  return markdownResponse('# Not found\n\nNothing is published at this address. The list of posts is at /api/blog.\n', { status: 404, cache: 'error' });
}

export function redirectResponse(location: string): Response {
  return new Response(null, { status: 302, headers: { Location: location, ...cacheHeaders('redirect') } });
}
