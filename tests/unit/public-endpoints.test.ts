import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownTwinOf, NEGOTIATED_PATHS } from '@/lib/http/markdown-twins';
import { API_CATALOG_PATH, llmsEntries, mcpServer, publicEndpoints } from '@/lib/public-endpoints';

const ROOT = path.resolve(import.meta.dirname, '../..');
const endpoints = publicEndpoints();

/** Whether app/ has a page or route file for a path (`{name}` matches a dynamic segment). */
function hasRoute(pathname: string): boolean {
  const segments = pathname.split('?')[0]!.split('/').filter(Boolean);
  const walk = (dir: string, rest: string[]): boolean => {
    if (rest.length === 0) return ['page.tsx', 'route.ts'].some((file) => fs.existsSync(path.join(dir, file)));
    const [head, ...tail] = rest as [string, ...string[]];
    const entries = fs.readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    return entries.some((entry) => (entry.name === head || (head.startsWith('{') && /^\[[^.]/.test(entry.name))) && walk(path.join(dir, entry.name), tail));
  };
  return walk(path.join(ROOT, 'app'), segments);
}

describe('the public endpoints', () => {
  it('lists each path once', () => {
    const paths = endpoints.map((entry) => entry.path);
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('lists the agent files and feeds the spec names', () => {
    const paths = endpoints.map((entry) => entry.path);
    for (const required of [
      '/llms.txt',
      '/llms-full.txt',
      '/pricing.md',
      '/openapi.json',
      API_CATALOG_PATH,
      '/sitemap.xml',
      '/robots.txt',
      '/api/blog',
      '/api/rss',
    ]) {
      expect(paths, required).toContain(required);
    }
  });

  it('names only paths the site has a route for (the .md URLs proxy.ts rewrites aside)', () => {
    for (const entry of endpoints) {
      if (entry.path.endsWith('.md') && entry.kind === 'markdown-twin') continue;
      expect(hasRoute(entry.path), entry.path).toBe(true);
    }
  });

  it('puts only HTML pages in the sitemap, and gives every markdown twin the page it stands for', () => {
    for (const entry of endpoints.filter((item) => item.sitemap)) expect(entry.type, entry.path).toBe('text/html');
    for (const entry of endpoints.filter((item) => item.kind === 'markdown-twin')) {
      expect(entry.type).toBe('text/markdown');
      expect(entry.page, entry.path).toMatch(/^\//);
    }
  });

  it('lists only fixed paths in the API catalog', () => {
    for (const entry of endpoints.filter((item) => item.catalog)) expect(entry.path, entry.path).not.toMatch(/[{?]/);
  });

  it('describes exactly the markdown twins of the route manifest, each served by a route of app/', () => {
    // Each page with its twin as `page -> twin`, a parameter written `{name}` (the manifest's `:name`).
    const pages = NEGOTIATED_PATHS.map((pattern) => pattern.replace(/:(\w+)/g, '{$1}'));
    const manifest = pages.map((page) => `${page} -> ${markdownTwinOf(page)?.markdownPath}`);
    const listed = endpoints.filter((entry) => entry.kind === 'markdown-twin').map((entry) => `${entry.page} -> ${entry.path}`);
    const describedOnly = listed.filter((twin) => !manifest.includes(twin));
    const undescribed = manifest.filter((twin) => !listed.includes(twin));
    expect({ describedOnly, undescribed }).toEqual({ describedOnly: [], undescribed: [] });
    expect(pages.map((page) => markdownTwinOf(page)!.route).filter((route) => !hasRoute(route))).toEqual([]);
  });

  it("gives llms.txt each section's entries in the list's order", () => {
    const sections = ['pages', 'agent-files', 'optional'] as const;
    for (const section of sections) expect(llmsEntries(section)).toEqual(endpoints.filter((entry) => entry.llms === section));
    expect(llmsEntries('agent-files').map((entry) => entry.path)).toContain('/llms-full.txt');
  });

  it('points at the MCP server’s documentation, a page a GET reaches', () => {
    expect(mcpServer.path).toBe('/mcp');
    expect(hasRoute(mcpServer.docs.split('#')[0]!)).toBe(true);
  });
});
