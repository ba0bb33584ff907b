/**
 * One spelling per resource, for the read cache's keys, by RFC 3986 §6.2.2 (the
 * way Next, through the WHATWG URL parser, reads a path): a percent-encoded
 * unreserved character (`%65` for `e`) is the character itself, the hex digits
 * of every other escape are upper case, dot segments are resolved (`/x/../blog/a`
 * is `/blog/a`, `%2E` being a dot) and a fragment is no part of it. Escapes of
 * anything else stay escaped, so `/blog/a%2Fb` (one segment holding a slash)
 * never meets `/blog/a/b` (two segments).
 *
 * Returns undefined for a request target with no single spelling worth keeping:
 * not a path (`*`, an absolute URL), a backslash, an empty segment (`//`, a
 * trailing `/`: Next redirects those) or malformed percent-encoding. Such
 * requests are answered, never kept. The query is the caller's.
 */
export function canonicalPath(target: string): string | undefined {
  const fragment = target.indexOf('#');
  const path = fragment === -1 ? target : target.slice(0, fragment);
  if (!path.startsWith('/') || path.includes('\\')) return undefined;
  const decoded = path.includes('%') ? normalizeEscapes(path) : path;
  if (decoded === undefined) return undefined;
  const canonical = DOT_SEGMENT.test(decoded) ? removeDotSegments(decoded) : decoded;
  return canonical !== '/' && EMPTY_SEGMENT.test(canonical) ? undefined : canonical;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const DOT_SEGMENT = /\/\.\.?(?=\/|$)/;
const EMPTY_SEGMENT = /\/(?=\/|$)/;

function normalizeEscapes(path: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(path)) return undefined;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(character) ? character : `%${hex.toUpperCase()}`;
  });
}

/** RFC 3986 §5.2.4, for a path that starts with `/`. */
function removeDotSegments(path: string): string {
  const segments = path.split('/').slice(1);
  const kept: string[] = [];
  segments.forEach((segment, index) => {
    if (segment === '..') kept.pop();
    if (segment !== '.' && segment !== '..') kept.push(segment);
    // `/a/.` and `/a/b/..` end in a directory: `/a/`.
    else if (index === segments.length - 1) kept.push('');
  });
  return `/${kept.join('/')}`;
}
