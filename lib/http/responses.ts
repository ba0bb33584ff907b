import { cacheHeaders, type CacheProfile } from './cache';

type Options = { status?: number; headers?: Record<string, string>; cache?: CacheProfile };

function respond(body: string, contentType: string, { status = 200, headers = {}, cache = 'read' }: Options): Response {
  return new Response(body, { status, headers: { 'Content-Type': contentType, ...cacheHeaders(cache), ...headers } });
}

export function markdownResponse(body: string, options: Options = {}): Response {
  return respond(body, 'text/markdown; charset=utf-8', options);
}

export function jsonResponse(body: unknown, options: Options = {}): Response {
  return respond(JSON.stringify(body), 'application/json; charset=utf-8', options);
}

export function xmlResponse(body: string, contentType: string, options: Options = {}): Response {
  return respond(body, `${contentType}; charset=utf-8`, options);
}

/** The short markdown answer for a `.md` URL or negotiated request that finds nothing. */
export function markdownNotFound(pathname: string): Response {
  return markdownResponse(`# Not found\n\nNothing is published at \`${pathname.replace(/`/g, '')}\`. The list of posts is at /api/blog.\n`, {
    status: 404,
    cache: 'error',
  });
}

export function redirectResponse(location: string): Response {
  return new Response(null, { status: 302, headers: { Location: location, ...cacheHeaders('redirect') } });
}
