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
    expect(api?.['service-desc']).toEqual([{ href: `${FIXTURE_SITE}/openapi.json`, type: 'application/vnd.oai.openapi+json;version=3.1' }]);
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
      if (!path.startsWith('/tags/')) expect(item.type).toBe(types.get(path));
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

  it('names the MCP server as an API of its own, with no item to GET', () => {
    expect(mcp).toMatchObject({ anchor: `${FIXTURE_SITE}/mcp`, 'service-doc': [{ href: `${FIXTURE_SITE}/docs/api#mcp` }] });
    expect(mcp).not.toHaveProperty('item');
  });
});
