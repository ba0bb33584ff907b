import { describe, expect, it } from 'vitest';
import { readEndpoints } from '@/lib/agents/api-docs';
import { openApiDocument } from '@/lib/agents/openapi';
import { settings } from '@/lib/settings';
import { publicEndpoints } from '@/lib/public-endpoints';
import { NEGOTIATED_PATHS, markdownTwinOf } from '@/lib/http/markdown-twins';
import { withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

type Operation = {
  summary: string;
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
};
const paths = openApiDocument(settings().site).paths as Record<string, { get?: Operation }>;

describe('OpenAPI: the read endpoints', () => {
  it('describes every fixed file and read endpoint of the public list, with a 200 of its media type, its Last-Modified, and a 304', () => {
    const fixed = publicEndpoints().filter((entry) => entry.kind !== 'page' && !entry.path.includes('{'));
    expect(fixed.length).toBeGreaterThan(15);
    for (const entry of fixed) {
      const get = paths[entry.path]?.get;
      expect(get, entry.path).toBeDefined();
      const type = entry.path === '/.well-known/api-catalog' ? expect.stringMatching(/^application\/linkset\+json; profile=/) : entry.type;
      expect(Object.keys(get?.responses['200']?.content ?? {}), entry.path).toEqual([type]);
      expect(get?.responses['304'], entry.path).toBeDefined();
      expect(get?.responses['200']?.headers, entry.path).toHaveProperty('Last-Modified');
    }
  });

  it('describes every markdown twin, the fixed ones and the ones with a parameter', () => {
    for (const pattern of NEGOTIATED_PATHS) {
      const markdownPath = markdownTwinOf(pattern.replace(/:(\w+)/g, '{$1}'))!.markdownPath;
      expect(paths[markdownPath]?.get?.responses['200']?.content, markdownPath).toHaveProperty(['text/markdown']);
    }
  });

  it('describes every endpoint the docs page lists, with its path parameters', () => {
    const documented = readEndpoints(settings().site)
      .map((row) => row.path.split(/[ ,?]/)[0]!)
      .filter((path) => !path.includes('/page/'));
    for (const path of documented) {
      const get = paths[path]?.get;
      expect(get, path).toBeDefined();
      const named = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(
        get?.parameters?.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        path,
      ).toEqual(named);
    }
  });

  it('answers a post or tag that does not exist with a 404', () => {
    for (const path of ['/api/blog/{slug}/markdown', '/blog/{slug}.md', '/blog/{slug}', '/tags/{tag}.md', '/tags/{tag}/rss.xml', '/api/apps/{slug}/download']) {
      expect(paths[path]?.get?.responses, path).toHaveProperty('404');
    }
  });

  it('lists the query parameters each route reads, with the ones it requires', () => {
    const query = (path: string) =>
      (paths[path]?.get?.parameters as { name: string; in: string; required: boolean }[] | undefined)
        ?.filter((parameter) => parameter.in === 'query')
        .map(({ name, required }) => ({ name, required }));
    expect(query('/api/search')).toEqual([
      { name: 'q', required: true },
      { name: 'limit', required: false },
    ]);
    expect(query('/api/blog')).toEqual([{ name: 'limit', required: false }]);
    expect(query('/api/blog/{slug}/markdown')).toEqual([]);
  });

  it('gives the JSON reads their schemas', () => {
    expect(paths['/api/blog']?.get?.responses['200']?.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/BlogList' } } });
    expect(paths['/feed.json']?.get?.responses['200']?.content).toEqual({ 'application/feed+json': { schema: { $ref: '#/components/schemas/JsonFeed' } } });
    expect(paths['/api/search']?.get?.responses['200']?.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/SearchResults' } } });
    expect(Object.keys(openApiDocument(settings().site).components.schemas)).toEqual(expect.arrayContaining(['BlogList', 'JsonFeed', 'SearchResults']));
  });
});

describe('OpenAPI: operations', () => {
  const all = Object.entries(openApiDocument(settings().site).paths as Record<string, Record<string, { operationId?: string }>>).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({ path, method, id: operation.operationId })),
  );

  it('names every operation with an operationId of its own', () => {
    expect(all.length).toBeGreaterThan(30);
    for (const { path, method, id } of all) expect(id, `${method} ${path}`).toMatch(/^[a-z]+[A-Z][A-Za-z0-9]*$/);
    expect(new Set(all.map((operation) => operation.id)).size).toBe(all.length);
    expect(all.find((operation) => operation.path === '/blog/{slug}.md')?.id).toBe('getBlogBySlugMd');
  });

  it('documents 412 on every read that keeps validators, and 400 for an undecodable path parameter', () => {
    for (const [path, { get }] of Object.entries(paths)) {
      if (!get?.responses['304']) continue;
      expect(get.responses['412'], path).toBeDefined();
      if (path.includes('{')) expect(get.responses['400'], path).toBeDefined();
    }
  });

  it('promises Last-Modified on the post page only with its markdown', () => {
    const page = paths['/blog/{slug}']?.get?.responses['200']?.headers as Record<string, { required?: boolean }>;
    expect(page['Last-Modified']?.required).not.toBe(true);
  });
});
