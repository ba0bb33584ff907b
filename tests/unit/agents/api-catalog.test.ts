import { describe, expect, it } from 'vitest';
import { apiCatalog } from '@/lib/agents/api-catalog';
import { publicEndpoints } from '@/lib/public-endpoints';
import { FIXTURE_SITE, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

describe('the API catalog', () => {
  const [api, mcp] = apiCatalog().linkset;
  const hrefs = (api?.item ?? []).map((item) => item.href.replace(FIXTURE_SITE, ''));

  it('is anchored at its own URL and describes the API with /openapi.json and /docs/api', () => {
    expect(api?.anchor).toBe(`${FIXTURE_SITE}/.well-known/api-catalog`);
    // The type /openapi.json is served with.
    expect(api?.['service-desc']).toEqual([{ href: `${FIXTURE_SITE}/openapi.json`, type: 'application/json' }]);
    expect(api?.['service-doc']).toEqual([{ href: `${FIXTURE_SITE}/docs/api`, type: 'text/html' }]);
  });

  it('reaches every agent file, feed, markdown twin and fixed read endpoint, once each', () => {
    for (const path of [
      '/llms.txt',
      '/llms-full.txt',
      '/pricing.md',
      '/openapi.json',
      '/robots.txt',
      '/sitemap.xml',
      '/api/blog',
      '/api/search',
      '/mcp',
      '/.well-known/mcp.json',
      '/api/home/markdown',
      '/api/rss',
      '/atom.xml',
      '/feed.json',
      '/index.md',
      '/blog.md',
      '/apps.md',
      '/docs/api.md',
      '/support.md',
    ]) {
      expect(hrefs).toContain(path);
    }
    expect(new Set(hrefs).size).toBe(hrefs.length);
  });

  it('gives each item the media type the endpoint answers with', () => {
    const types = new Map(publicEndpoints().map((entry) => [entry.path, entry.type]));
    for (const item of api?.item ?? []) {
      const path = item.href.replace(FIXTURE_SITE, '');
      if (!path.startsWith('/tags/') && path !== '/mcp') expect(item.type).toBe(types.get(path));
    }
    expect((api?.item ?? []).find((item) => item.href.endsWith('/api/rss'))?.type).toBe('application/rss+xml');
  });

  it('lists each tag RSS feed, and no templated path, HTML page or the catalog itself', () => {
    expect(hrefs).toEqual(expect.arrayContaining(['/tags/testing/rss.xml', '/tags/http/rss.xml', '/tags/escaping/rss.xml']));
    expect(hrefs.filter((href) => href.includes('{'))).toEqual([]);
    expect(hrefs).not.toContain('/.well-known/api-catalog');
    expect(hrefs).not.toContain('/blog');
    expect(hrefs).not.toContain('/tags/unpublished-only/rss.xml');
  });

  it('names the MCP server as an item and as an API of its own, described by /openapi.json and its server card', () => {
    expect(api?.item).toContainEqual({
      href: `${FIXTURE_SITE}/mcp`,
      type: 'application/json',
      title: 'MCP server',
      'mcp-protocol-versions': ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'],
    });
    expect(mcp).toMatchObject({
      anchor: `${FIXTURE_SITE}/mcp`,
      'service-desc': [
        { href: `${FIXTURE_SITE}/openapi.json`, type: 'application/json' },
        { href: `${FIXTURE_SITE}/.well-known/mcp.json`, type: 'application/json' },
      ],
      'service-doc': [{ href: `${FIXTURE_SITE}/docs/api#mcp` }],
    });
  });
});
