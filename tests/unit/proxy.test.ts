import * as staticInfo from 'next/dist/build/analysis/get-page-static-info';
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { markdownTwinOf } from '@/lib/http/markdown-twins';
import { VARIANT_HEADER } from '@/lib/http/negotiate';
import { publicEndpoints } from '@/lib/public-endpoints';
import { mcpRoute, postPaths } from '@/lib/routes/manifest';
import { createRequestHandler } from '@/lib/server/request-handler';
import { config, proxy } from '@/proxy';

/**
 * Next reads proxy.ts's `config.matcher` as a literal when it builds (a value computed from the
 * route lists would be ignored), so the literal is held here to the lists it stands for: the
 * endpoint list (lib/public-endpoints.ts) and the route manifest (lib/routes/manifest.ts).
 */
// Next's own reading of a matcher, as its build reads the literal (left out of its type declarations).
const { getMiddlewareMatchers } = staticInfo as unknown as { getMiddlewareMatchers: (matcher: string[], nextConfig: object) => staticInfo.ProxyMatcher[] };
const matchers = getMiddlewareMatchers(config.matcher, {}).map((matcher) => new RegExp(matcher.regexp));
const passesProxy = (pathname: string) => matchers.some((matcher) => matcher.test(pathname));
/** A path of a list with each `{name}` given a value. */
const concrete = (path: string) => path.replace(/\{\w+\}/g, 'a-value');

describe("proxy.ts's matcher", () => {
  it('lets every public read through: each page, its markdown twin (by .md URL), feed, agent file and read API', () => {
    const reads = publicEndpoints().flatMap((entry) => {
      const path = concrete(entry.path);
      const twin = markdownTwinOf(path);
      return twin ? [path, twin.markdownPath] : [path];
    });
    expect(reads.length).toBeGreaterThan(20);
    expect(reads.filter((path) => !passesProxy(path))).toEqual([]);
  });

  it('keeps out every path that takes a body (write routes, MCP, the payments webhook), which counts its own as it arrives', () => {
    const posts = [...postPaths, `${mcpRoute.path}/`];
    expect(posts.length).toBeGreaterThan(10);
    expect(posts.filter(passesProxy)).toEqual([]);
  });

  it("keeps out the fediverse's inboxes (next.config.ts rewrites them to their route, which reads its own body), and lets its other URLs through", () => {
    for (const path of ['/inbox', '/@blog/inbox']) expect(passesProxy(path), path).toBe(false);
    for (const path of ['/@blog', '/@blog/outbox', '/.well-known/webfinger', '/blog/a-post']) expect(passesProxy(path), path).toBe(true);
  });

  it("keeps out Next's build files and a write route yet to come (a new one needs no edit there), and lets the IndexNow key file through", () => {
    expect(passesProxy('/_next/static/chunks/main.js')).toBe(false);
    expect(passesProxy('/api/a-new-write-route')).toBe(false);
    expect(passesProxy('/0123456789abcdef.txt')).toBe(true);
  });
});

/** Where proxy.ts sends a request for `path`: the markdown twin's route it rewrites to, or `page` when it lets the page answer. */
function routed(path: string, headers: Record<string, string>): string {
  const response = proxy(new NextRequest(`http://localhost:3000${path}`, { headers }));
  const rewrite = response.headers.get('x-middleware-rewrite');
  return rewrite ? new URL(rewrite).pathname : response.headers.get('x-middleware-next') ? 'page' : `status ${response.status}`;
}

// In this order: the first runs in a process where no lectern request handler has been made yet.
describe('proxy.ts and the variant lectern decided', () => {
  it("decides by Accept, whatever a client sends as lectern's record, where lectern's request handler does not run (next start, a platform host)", () => {
    expect(routed('/pricing', { accept: 'text/html', [VARIANT_HEADER]: 'markdown' })).toBe('page');
    expect(routed('/blog/a-post', { accept: 'text/markdown', [VARIANT_HEADER]: 'html' })).toBe('/blog/a-post/index.md');
  });

  it('takes the variant recorded by the request handler of a process where it runs, and decides nothing again', () => {
    createRequestHandler(() => undefined, { siteUrl: 'http://localhost:3000', trustProxy: 0, csp: false });
    // The record and Accept disagree here only to show which one routes.
    expect(routed('/pricing', { accept: 'text/html', [VARIANT_HEADER]: 'markdown' })).toBe('/pricing.md');
    expect(routed('/blog/a-post', { accept: 'text/markdown', [VARIANT_HEADER]: 'html' })).toBe('page');
    // No record (the server's own requests over loopback): decided by Accept.
    expect(routed('/blog/a-post', { accept: 'text/markdown' })).toBe('/blog/a-post/index.md');
    // A path with one answer has no variant, whatever is recorded.
    expect(routed('/api/blog', { accept: 'text/html', [VARIANT_HEADER]: 'markdown' })).toBe('page');
  });
});
