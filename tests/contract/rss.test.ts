import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { get, url } from '../support/http';

type Item = {
  title: string;
  link: string;
  guid: { '#text': string; '@_isPermaLink': string };
  pubDate: string;
  description: string;
  'content:encoded': string;
  category?: unknown;
};

async function feed() {
  const response = await get('/api/rss');
  const xml = await response.text();
  const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'item' || name === 'category' }).parse(xml);
  return { response, xml, channel: parsed.rss.channel as Record<string, unknown> & { item: Item[] }, version: parsed.rss['@_version'] };
}

describe('GET /api/rss', () => {
  it('is well-formed RSS 2.0 with the right content type', async () => {
    const { response, xml, version } = await feed();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/rss+xml; charset=utf-8');
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(version).toBe('2.0');
  });

  it('links itself with atom:link rel="self", and the licence with rel="license"', async () => {
    const { channel } = await feed();
    expect(channel['atom:link']).toEqual([
      { '@_href': url('/api/rss'), '@_rel': 'self', '@_type': 'application/rss+xml' },
      { '@_href': url('/license.xml'), '@_rel': 'license', '@_type': 'application/rsl+xml' },
    ]);
  });

  it('holds the published posts newest first with permalink guids, RFC 822 dates and categories', async () => {
    const { channel } = await feed();
    expect(channel.item.map((item) => item.link)).toEqual(['escaping-post', 'beta-post', 'gamma-post', 'alpha-post'].map((slug) => url(`/blog/${slug}`)));
    for (const item of channel.item) {
      expect(item.guid['#text']).toBe(item.link);
      expect(item.guid['@_isPermaLink']).toBe('true');
      expect(item.pubDate).toMatch(
        /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} (GMT|[+-]\d{4})$/,
      );
    }
    const alpha = channel.item.find((item) => item.link === url('/blog/alpha-post'));
    // Midnight in the site's time zone (New York), not in London.
    expect(alpha?.pubDate).toBe('Fri, 10 Jan 2025 05:00:00 GMT');
    expect(alpha?.category).toHaveLength(2);
    expect(alpha?.description).toBe('The first fixture post, with code and a table.');
  });

  it('carries the full HTML, sanitized, with absolute links', async () => {
    const { channel } = await feed();
    const alpha = channel.item.find((item) => item.link === url('/blog/alpha-post'));
    const html = alpha?.['content:encoded'] ?? '';
    expect(html).toContain('<h2 id="introduction">');
    expect(html).toContain(`href="${url('/blog/beta-post')}"`);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('onerror');
  });

  it('keeps a title with <script>, & and ]]> intact as text', async () => {
    const { channel } = await feed();
    expect(channel.item[0]?.title).toBe('Tom & Jerry <script>alert(1)</script> ]]> here');
  });
});
