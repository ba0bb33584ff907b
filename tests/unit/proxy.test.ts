import * as staticInfo from 'next/dist/build/analysis/get-page-static-info';
import { describe, expect, it } from 'vitest';
import { markdownTwinOf } from '@/lib/http/markdown-twins';
import { publicEndpoints } from '@/lib/public-endpoints';
import { mcpRoute, postPaths } from '@/lib/routes/manifest';
import { config } from '@/proxy';

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

  it("keeps out Next's build files and a write route yet to come (a new one needs no edit there), and lets the IndexNow key file through", () => {
    expect(passesProxy('/_next/static/chunks/main.js')).toBe(false);
    expect(passesProxy('/api/a-new-write-route')).toBe(false);
    expect(passesProxy('/0123456789abcdef.txt')).toBe(true);
  });
});
