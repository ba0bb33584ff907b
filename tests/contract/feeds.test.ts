import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { elementsOf, urlsInHtml } from '../support/html-urls';
import { get, url } from '../support/http';

const READ_CACHE_CONTROL = 'public, max-age=30, s-maxage=30, stale-while-revalidate=30';
const NEWEST_FIRST = ['escaping-post', 'beta-post', 'gamma-post', 'alpha-post'];
const UNPUBLISHED = ['draft-post', 'future-post', 'Secret draft post', 'Future post', 'SECRET-DRAFT-MARKER', 'SECRET-FUTURE-MARKER'];
const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;

type Item = { link: string; html: string };

const xml = new XMLParser({
  ignoreAttributes: false,
  isArray: (name, jpath) => ['item', 'category', 'entry'].includes(name) || /^feed\.(entry\.)?link$/.test(String(jpath)),
});

/** The items of a feed, whatever its format: each item's link and its HTML content. */
async function itemsOf(pathname: string): Promise<Item[]> {
  const body = await (await get(pathname)).text();
  if (pathname.endsWith('.json')) {
    return (JSON.parse(body) as { items: { url: string; content_html: string }[] }).items.map((item) => ({ link: item.url, html: item.content_html }));
  }
  const parsed = xml.parse(body);
  if (parsed.feed) {
    return (parsed.feed.entry as { link: { '@_href': string }[]; content: { '#text': string } }[]).map((entry) => ({
      link: entry.link[0]?.['@_href'] ?? '',
      html: entry.content['#text'],
    }));
  }
  return (parsed.rss.channel.item as { link: string; 'content:encoded': string }[]).map((item) => ({ link: item.link, html: item['content:encoded'] }));
}

const FEEDS = [
  { pathname: '/api/rss', type: 'application/rss+xml; charset=utf-8', slugs: NEWEST_FIRST, changed: Date.UTC(2025, 3, 1, 7, 30) },
  { pathname: '/atom.xml', type: 'application/atom+xml; charset=utf-8', slugs: NEWEST_FIRST, changed: Date.UTC(2025, 3, 1, 7, 30) },
  { pathname: '/feed.json', type: 'application/feed+json; charset=utf-8', slugs: NEWEST_FIRST, changed: Date.UTC(2025, 3, 1, 7, 30) },
  {
    pathname: '/tags/testing/rss.xml',
    type: 'application/rss+xml; charset=utf-8',
    slugs: ['beta-post', 'alpha-post'],
    changed: Date.parse('2025-03-05T00:00:00-05:00'),
  },
  { pathname: '/tags/http/rss.xml', type: 'application/rss+xml; charset=utf-8', slugs: ['alpha-post'], changed: Date.parse('2025-02-01T00:00:00-05:00') },
];

describe.each(FEEDS)('$pathname', ({ pathname, type, slugs, changed }) => {
  it(`answers 200 ${type} with CORS, the read Cache-Control, a strong ETag and the newest post's change as Last-Modified`, async () => {
    const response = await get(pathname);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(type);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe(READ_CACHE_CONTROL);
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(Date.parse(response.headers.get('last-modified') ?? '')).toBe(changed);
    const body = await response.text();
    if (!pathname.endsWith('.json')) expect(XMLValidator.validate(body)).toBe(true);
  });

  it('answers If-None-Match with 304 and no body, and HEAD with the same headers and no body', async () => {
    const first = await get(pathname);
    const etag = first.headers.get('etag') ?? '';
    const notModified = await get(pathname, { 'If-None-Match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await notModified.arrayBuffer()).byteLength).toBe(0);
    const head = await get(pathname, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe(type);
    expect(head.headers.get('etag')).toBe(etag);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('holds exactly its published posts, newest first, and nothing of a draft or a future post', async () => {
    const body = await (await get(pathname)).text();
    for (const marker of UNPUBLISHED) expect(body).not.toContain(marker);
    expect((await itemsOf(pathname)).map((item) => item.link)).toEqual(slugs.map((slug) => url(`/blog/${slug}`)));
  });

  it('has only absolute URLs in the HTML of its items', async () => {
    const items = await itemsOf(pathname);
    for (const item of items) {
      const urls = urlsInHtml(item.html);
      expect(
        urls.filter((found) => !ABSOLUTE.test(found)),
        item.link,
      ).toEqual([]);
    }
  });
});

describe('URLs inside feed content', () => {
  it.each(['/api/rss', '/atom.xml', '/feed.json', '/tags/testing/rss.xml'])(
    '%s resolves relative links and images against the post URL, as the page does',
    async (pathname) => {
      const alpha = (await itemsOf(pathname)).find((item) => item.link === url('/blog/alpha-post'));
      const urls = urlsInHtml(alpha?.html ?? '');
      expect(urls).toEqual(
        expect.arrayContaining([
          url('/blog/beta-post'),
          url('/blog/gamma-post'),
          url('/pricing'),
          url('/blog/alpha-post#details'),
          url('/blog/alpha-post#introduction'),
          url('/blog/x'),
          url('/blog/images/narrow.png'),
          url('/blog/wide.png'),
          url('/images/test-fixture.svg'),
        ]),
      );
    },
  );
});

describe('GET /atom.xml', () => {
  it('is an Atom 1.0 feed with its id, title, author, updated and self link', async () => {
    const { feed } = xml.parse(await (await get('/atom.xml')).text());
    expect(feed['@_xmlns']).toBe('http://www.w3.org/2005/Atom');
    expect(feed.id).toBe(url('/'));
    expect(feed.title).toBe('Fixture & Co');
    expect(feed.author.name).toBe('Test Author');
    expect(feed.updated).toBe('2025-04-01T07:30:00.000Z');
    expect(feed.link).toContainEqual(expect.objectContaining({ '@_rel': 'self', '@_href': url('/atom.xml') }));
  });

  it('dates each entry by publication and last change, and carries a title and summary with markup as escaped HTML', async () => {
    const { feed } = xml.parse(await (await get('/atom.xml')).text());
    const entries = feed.entry as {
      id: string;
      title: { '#text': string; '@_type': string };
      summary: { '#text': string; '@_type': string };
      published: string;
      updated: string;
      content: { '@_type': string };
    }[];
    const alpha = entries.find((entry) => entry.id === url('/blog/alpha-post'));
    // Date-only: midnight in the site's time zone (New York, UTC-5 in winter).
    expect(alpha).toMatchObject({ published: '2025-01-10T05:00:00.000Z', updated: '2025-02-01T05:00:00.000Z', content: { '@_type': 'html' } });
    const escaping = entries[0]!;
    expect(escaping.title['@_type']).toBe('html');
    const decode = (html: string) =>
      html
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
    expect(escaping.title['#text']).not.toContain('<script>');
    expect(decode(escaping.title['#text'])).toBe('Tom & Jerry <script>alert(1)</script> ]]> here');
    expect(escaping.summary['@_type']).toBe('html');
    expect(decode(escaping.summary['#text'])).toBe('A title with markup, an ampersand & quotes "like this".');
    expect(escaping.summary['#text']).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/);
  });
});

describe('GET /feed.json', () => {
  it('is JSON Feed 1.1 with the required fields', async () => {
    const feed = (await (await get('/feed.json')).json()) as Record<string, unknown> & { items: Record<string, unknown>[] };
    expect(feed).toMatchObject({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'Fixture & Co',
      home_page_url: url('/'),
      feed_url: url('/feed.json'),
      language: 'en',
      authors: [{ name: 'Test Author' }],
    });
    expect(feed.author).toBeUndefined();
    for (const item of feed.items) {
      expect(item.id).toBe(item.url);
      expect(typeof item.content_html).toBe('string');
      expect(item.content_html).not.toBe('');
    }
    expect(feed.items.find((item) => item.url === url('/blog/alpha-post'))).toMatchObject({
      title: 'Alpha post',
      summary: 'The first fixture post, with code and a table.',
      date_published: '2025-01-10T05:00:00.000Z',
      date_modified: '2025-02-01T05:00:00.000Z',
      tags: ['http', 'testing'],
    });
  });
});

describe('GET /tags/{tag}/rss.xml', () => {
  it('is the RSS of one tag, linking itself, the tag page and the licence', async () => {
    const { rss } = xml.parse(await (await get('/tags/testing/rss.xml')).text());
    expect(rss['@_version']).toBe('2.0');
    expect(rss.channel.link).toBe(url('/tags/testing'));
    expect(rss.channel['atom:link']).toEqual([
      { '@_href': url('/tags/testing/rss.xml'), '@_rel': 'self', '@_type': 'application/rss+xml' },
      // The site's licence (RSL 1.0), as in every feed.
      { '@_href': url('/license.xml'), '@_rel': 'license', '@_type': 'application/rsl+xml' },
    ]);
    for (const item of rss.channel.item as { category: { '#text': string }[] }[]) {
      expect(item.category.map((category) => category['#text'])).toContain('testing');
    }
  });

  it('is 404 for a tag no published post has', async () => {
    expect((await get('/tags/no-such-tag/rss.xml')).status).toBe(404);
  });

  it('exists for every tag of the site', async () => {
    for (const tag of ['http', 'testing', 'escaping']) expect((await get(`/tags/${tag}/rss.xml`)).status).toBe(200);
  });
});

describe('feed discovery', () => {
  it.each(['/', '/blog', '/blog/alpha-post', '/tags/testing', '/docs/api'])(
    '%s links RSS, Atom and JSON Feed with <link rel="alternate">',
    async (pathname) => {
      const links = elementsOf(await (await get(pathname)).text(), 'link', 'head').filter((link) => link.rel === 'alternate');
      expect(links).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'application/rss+xml', href: url('/api/rss') }),
          expect.objectContaining({ type: 'application/atom+xml', href: url('/atom.xml') }),
          expect.objectContaining({ type: 'application/feed+json', href: url('/feed.json') }),
        ]),
      );
    },
  );

  it("a tag page links its tag's RSS feed too, and no other tag's", async () => {
    const feeds = (pathname: string) =>
      get(pathname).then(async (response) =>
        elementsOf(await response.text(), 'link', 'head')
          .filter((link) => link.rel === 'alternate' && link.type === 'application/rss+xml')
          .map((link) => link.href),
      );
    expect(await feeds('/tags/testing')).toEqual([url('/api/rss'), url('/tags/testing/rss.xml')]);
    expect(await feeds('/blog')).toEqual([url('/api/rss')]);
  });

  it('llms.txt, the API catalog, /openapi.json and /docs/api list the feeds', async () => {
    const llms = await (await get('/llms.txt')).text();
    for (const pathname of ['/api/rss', '/atom.xml', '/feed.json']) expect(llms).toContain(`](${url(pathname)})`);
    const catalog = (await (await get('/.well-known/api-catalog')).json()) as { linkset: { item: { href: string; type: string }[] }[] };
    expect(catalog.linkset[0]?.item).toEqual(
      expect.arrayContaining([
        { href: url('/atom.xml'), type: 'application/atom+xml' },
        { href: url('/feed.json'), type: 'application/feed+json' },
        { href: url('/tags/testing/rss.xml'), type: 'application/rss+xml' },
        { href: url('/tags/http/rss.xml'), type: 'application/rss+xml' },
      ]),
    );
    const openapi = (await (await get('/openapi.json')).json()) as {
      paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }>;
    };
    expect(Object.keys(openapi.paths['/atom.xml']?.get?.responses['200']?.content ?? {})).toEqual(['application/atom+xml']);
    expect(Object.keys(openapi.paths['/feed.json']?.get?.responses['200']?.content ?? {})).toEqual(['application/feed+json']);
    expect(openapi.paths['/tags/{tag}/rss.xml']?.get?.responses['404']).toBeDefined();
    const docs = await (await get('/docs/api')).text();
    for (const pathname of ['/atom.xml', '/feed.json', '/tags/{tag}/rss.xml']) expect(docs).toContain(`<code>${pathname}</code>`);
  });
});

describe('authors and language in the feeds', () => {
  // gamma-post names its own author; every other post is the site's.
  const authorOf = (link: string) => (link === url('/blog/gamma-post') ? 'Guest Writer' : 'Test Author');

  it('RSS names the channel’s and every item’s author as dc:creator', async () => {
    for (const path of ['/api/rss', '/tags/testing/rss.xml']) {
      const channel = xml.parse(await (await get(path)).text()).rss.channel as { 'dc:creator': string; item: { link: string; 'dc:creator': string }[] };
      expect(channel['dc:creator'], path).toBe('Test Author');
      for (const item of channel.item) expect(item['dc:creator'], item.link).toBe(authorOf(item.link));
    }
  });

  it('Atom names every entry’s author and states its language with xml:lang', async () => {
    const { feed } = xml.parse(await (await get('/atom.xml')).text());
    expect(feed['@_xml:lang']).toBe('en');
    for (const entry of feed.entry as { link: { '@_href': string }[]; author: { name: string } }[]) {
      expect(entry.author.name).toBe(authorOf(entry.link[0]!['@_href']));
    }
  });

  it('JSON Feed names every item’s authors', async () => {
    const feed = (await (await get('/feed.json')).json()) as { items: { url: string; authors: { name: string }[] }[] };
    for (const item of feed.items) expect(item.authors).toEqual([expect.objectContaining({ name: authorOf(item.url) })]);
  });

  it('the post page names its own author in JSON-LD', async () => {
    const html = await (await get('/blog/gamma-post')).text();
    const data = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/.exec(html)?.[1] ?? '{}') as { author: { name: string } };
    expect(data.author.name).toBe('Guest Writer');
  });
});

describe('a date-only post is midnight in the site’s time zone, the same instant everywhere', () => {
  // beta-post: date 2025-03-05, no update; the fixture site's zone is America/New_York (UTC-5 that day).
  const instant = Date.parse('2025-03-05T00:00:00-05:00');

  it('in the three feeds, the sitemap, the page (time and JSON-LD) and the markdown’s Last-Modified', async () => {
    const rss = xml.parse(await (await get('/api/rss')).text()).rss.channel.item as { link: string; pubDate: string }[];
    const atom = xml.parse(await (await get('/atom.xml')).text()).feed.entry as { id: string; published: string; updated: string }[];
    const json = ((await (await get('/feed.json')).json()) as { items: { url: string; date_published: string; date_modified: string }[] }).items;
    const sitemap = new XMLParser({ isArray: (name) => name === 'url' }).parse(await (await get('/sitemap.xml')).text()).urlset.url as {
      loc: string;
      lastmod: string;
    }[];
    const page = await (await get('/blog/beta-post')).text();
    const jsonLd = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/.exec(page)?.[1] ?? '{}') as {
      datePublished: string;
      dateModified: string;
    };
    const published = /<meta property="article:published_time" content="([^"]+)"/.exec(page)?.[1];
    const time = /<time dateTime="([^"]+)">March 5, 2025<\/time>/.exec(page)?.[1];
    const markdown = await get('/blog/beta-post.md');
    const link = url('/blog/beta-post');

    const stated = {
      rss: rss.find((item) => item.link === link)?.pubDate,
      atomPublished: atom.find((entry) => entry.id === link)?.published,
      atomUpdated: atom.find((entry) => entry.id === link)?.updated,
      jsonPublished: json.find((item) => item.url === link)?.date_published,
      jsonModified: json.find((item) => item.url === link)?.date_modified,
      sitemap: sitemap.find((entry) => entry.loc === link)?.lastmod,
      jsonLdPublished: jsonLd.datePublished,
      jsonLdModified: jsonLd.dateModified,
      openGraph: published,
      time,
      lastModified: markdown.headers.get('last-modified') ?? undefined,
    };
    for (const [where, value] of Object.entries(stated)) expect(value === undefined ? NaN : Date.parse(value), `${where}: ${value}`).toBe(instant);
    // Where the day is shown with an offset, it is the site's own.
    expect(time).toBe('2025-03-05T00:00:00-05:00');
    expect(jsonLd.datePublished).toBe('2025-03-05T00:00:00-05:00');
  });
});
