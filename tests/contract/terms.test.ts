import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import robotsParser from 'robots-parser';
import { parseDictionary, Token } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { get, url } from '../support/http';
import { freePort, startSite, type RunningSite } from '../support/site';

/** The terms as the fixture site states them (lib/agents/terms.ts). */
const REUSE = 'Short excerpts are allowed with attribution and a link to the original. Republishing whole articles is not permitted.';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CCBOT = 'CCBot/2.0 (https://commoncrawl.org/faq/)';
const OAI_SEARCHBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot';
const CLAUDE_USER = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)';

/** Content-Usage as an RFC 9651 dictionary, each value a token `y` or `n`. */
function usage(value: string | null): Record<string, string> {
  expect(value).not.toBeNull();
  return Object.fromEntries(
    [...parseDictionary(value ?? '')].map(([key, [item]]) => {
      expect(item, key).toBeInstanceOf(Token);
      return [key, String(item)];
    }),
  );
}

describe('/robots.txt, read by robots-parser', () => {
  async function robots() {
    const text = await (await get('/robots.txt')).text();
    return { text, lines: text.split('\n'), parser: robotsParser(url('/robots.txt'), text) };
  }

  /** The lines of the group robots-parser applies to an agent: from its User-agent line to the next blank line. */
  function groupOf(lines: string[], lineNumber: number): string[] {
    let start = lineNumber - 1;
    while (start > 0 && !lines[start - 1]?.startsWith('User-agent:')) start--;
    let end = lineNumber - 1;
    while (end < lines.length && lines[end] !== '') end++;
    return lines.slice(start - 1, end);
  }

  it('refuses training crawlers the site but the licence and llms.txt, and lets search and retrieval agents in', async () => {
    const { parser } = await robots();
    for (const agent of ['GPTBot', 'ClaudeBot', 'CCBot', 'Bytespider', 'meta-externalagent', 'Google-Extended']) {
      expect(parser.isAllowed(url('/blog/alpha-post'), agent), agent).toBe(false);
      expect(parser.isAllowed(url('/license.xml'), agent), agent).toBe(true);
      expect(parser.isAllowed(url('/llms.txt'), agent), agent).toBe(true);
    }
    for (const agent of ['OAI-SearchBot', 'ChatGPT-User', 'Claude-User', 'PerplexityBot', 'Googlebot', 'SomeReader']) {
      expect(parser.isAllowed(url('/blog/alpha-post'), agent), agent).toBe(true);
    }
    expect(parser.getSitemaps()).toEqual([url('/sitemap.xml')]);
  });

  it('states the terms in both vocabularies in the group each agent follows', async () => {
    const { lines, parser } = await robots();
    for (const agent of ['GPTBot', 'OAI-SearchBot', 'SomeReader']) {
      const line = parser.getMatchingLineNumber(url('/blog/alpha-post'), agent);
      expect(line, agent).toBeGreaterThan(0);
      const group = groupOf(lines, line);
      expect(group, agent).toContain('Content-Signal: search=yes, ai-input=yes, ai-train=no');
      const rule = group.find((text) => text.startsWith('Content-Usage:'));
      const [, path, preference] = /^Content-Usage:\s*(\/\S*)\s+(.+)$/.exec(rule ?? '') ?? [];
      expect(path, agent).toBe('/');
      expect(usage(preference ?? null), agent).toEqual({ 'train-ai': 'n', 'ai-use': 'y', search: 'y' });
    }
  });

  it('names the RSL licence on a License line, and the licence is there', async () => {
    const { lines } = await robots();
    expect(lines.filter((line) => line.startsWith('License:'))).toEqual([`License: ${url('/license.xml')}`]);
    expect((await get('/license.xml')).status).toBe(200);
  });
});

describe('/license.xml (RSL 1.0)', () => {
  type Rsl = {
    rsl: {
      '@_xmlns': string;
      content: {
        '@_url': string;
        license: { permits: { '#text': string; '@_type': string }; prohibits: { '#text': string; '@_type': string }; payment: { '@_type': string } };
        copyright: { '#text': string; '@_type': string };
        terms: string;
      }[];
    };
  };
  /** RSL 1.0's elements (rslstandard.org/rsl), the usage vocabulary and the payment types. */
  const ELEMENTS = new Set([
    'rsl',
    'content',
    'license',
    'permits',
    'prohibits',
    'payment',
    'standard',
    'custom',
    'amount',
    'legal',
    'schema',
    'copyright',
    'terms',
  ]);
  const USAGES = new Set(['all', 'ai-all', 'ai-train', 'ai-input', 'ai-index', 'search']);
  const PAYMENTS = new Set(['purchase', 'subscription', 'training', 'crawl', 'use', 'contribution', 'attribution', 'free']);

  it('is served as application/rsl+xml, cacheable, open to everyone', async () => {
    for (const agent of [GPTBOT, OAI_SEARCHBOT, 'curl/8.0']) {
      const response = await get('/license.xml', { 'User-Agent': agent });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/rsl+xml; charset=utf-8');
      expect(response.headers.get('cache-control')).toMatch(/public/);
    }
  });

  it('is well-formed RSL made of the spec’s elements, and says what the reuse rule says', async () => {
    const xml = await (await get('/license.xml')).text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const names: string[] = [];
    const collect = (node: unknown, name: string) => {
      if (name.startsWith('@_') || name === '#text' || name === '?xml') return;
      names.push(name);
      for (const item of Array.isArray(node) ? node : [node]) {
        if (item && typeof item === 'object') for (const [key, value] of Object.entries(item)) collect(value, key);
      }
    };
    const parser = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'content', alwaysCreateTextNode: false });
    const document = parser.parse(xml) as Rsl & Record<string, unknown>;
    for (const [key, value] of Object.entries(document)) collect(value, key);
    expect(names.filter((name) => !ELEMENTS.has(name))).toEqual([]);

    expect(document.rsl['@_xmlns']).toBe('https://rslstandard.org/rsl');
    const [content] = document.rsl.content;
    expect(content?.['@_url']).toBe(url('/'));
    const { permits, prohibits, payment } = content!.license;
    expect(permits['@_type']).toBe('usage');
    expect(prohibits['@_type']).toBe('usage');
    const permitted = permits['#text'].split(/\s+/);
    const prohibited = prohibits['#text'].split(/\s+/);
    for (const value of [...permitted, ...prohibited]) expect(USAGES.has(value), value).toBe(true);
    expect(permitted.sort()).toEqual(['ai-input', 'search']);
    expect(prohibited).toEqual(['ai-train']);
    // Excerpts on condition of attribution: RSL's attribution payment.
    expect(PAYMENTS.has(payment['@_type'])).toBe(true);
    expect(payment['@_type']).toBe('attribution');
    expect(content!.copyright['#text']).toBe('Test Author');
    // The terms in words: llms.txt, which carries the reuse rule.
    expect(content!.terms).toBe(url('/llms.txt'));
    expect(await (await get('/llms.txt')).text()).toContain(REUSE);
  });

  it('is linked from the HTML head, the feeds and llms.txt', async () => {
    const href = url('/license.xml');
    const html = await (await get('/blog/alpha-post', { Accept: 'text/html' })).text();
    expect(html).toMatch(new RegExp(`<link rel="license" type="application/rsl\\+xml" href="${href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"/>`));
    expect(html).toContain(REUSE);
    const rss = new XMLParser({ ignoreAttributes: false }).parse(await (await get('/api/rss')).text()) as {
      rss: { channel: { 'atom:link': { '@_rel': string; '@_href': string; '@_type': string }[] } };
    };
    expect(rss.rss.channel['atom:link']).toContainEqual(expect.objectContaining({ '@_rel': 'license', '@_href': href, '@_type': 'application/rsl+xml' }));
    const atom = new XMLParser({ ignoreAttributes: false }).parse(await (await get('/atom.xml')).text()) as {
      feed: { link: { '@_rel': string; '@_href': string; '@_type'?: string }[] };
    };
    expect(atom.feed.link).toContainEqual(expect.objectContaining({ '@_rel': 'license', '@_href': href, '@_type': 'application/rsl+xml' }));
    const json = (await (await get('/feed.json')).json()) as { _license: { url: string; type: string } };
    expect(json._license).toMatchObject({ url: href, type: 'application/rsl+xml' });
    const llms = await (await get('/llms.txt')).text();
    expect(llms).toContain(`](${href}): `);
  });
});

describe('Content-Usage on content', () => {
  it.each([
    ['/blog/alpha-post', { Accept: 'text/html' }],
    ['/', {}],
    ['/blog/alpha-post', { Accept: 'text/markdown' }],
    ['/blog/alpha-post.md', {}],
    ['/api/blog/alpha-post/markdown', {}],
    ['/llms.txt', {}],
    ['/llms-full.txt', {}],
    ['/api/rss', {}],
    ['/atom.xml', {}],
    ['/feed.json', {}],
    ['/api/blog', {}],
  ] as [string, Record<string, string>][])('%s %j says train-ai=n, ai-use=y, search=y', async (pathname, headers) => {
    const response = await get(pathname, headers);
    expect(response.status).toBe(200);
    expect(usage(response.headers.get('content-usage'))).toEqual({ 'train-ai': 'n', 'ai-use': 'y', search: 'y' });
    // A revalidation says the same.
    const again = await get(pathname, { ...headers, 'If-None-Match': response.headers.get('etag') ?? '' });
    expect(again.status).toBe(304);
    expect(again.headers.get('content-usage')).toBe(response.headers.get('content-usage'));
  });
});

describe('training crawlers', () => {
  it('get 403 problem details pointing at robots.txt and the licence for a post, its markdown, a feed and the JSON list', async () => {
    for (const agent of [GPTBOT, CCBOT]) {
      for (const pathname of ['/blog/alpha-post', '/blog/alpha-post.md', '/api/rss', '/api/blog', '/', '/llms-full.txt']) {
        // Read first by a reader, so the read cache holds it: the crawler still gets no copy.
        expect((await get(pathname)).status, pathname).toBe(200);
        const response = await get(pathname, { 'User-Agent': agent });
        expect(response.status, `${agent} ${pathname}`).toBe(403);
        expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(response.headers.get('link')).toContain(`<${url('/license.xml')}>; rel="license"`);
        const body = (await response.json()) as { status: number; detail: string };
        expect(body.status).toBe(403);
        expect(body.detail).toContain(url('/robots.txt'));
        expect(body.detail).toContain(url('/license.xml'));
        expect((await get(pathname, { 'User-Agent': agent }, 'HEAD')).status).toBe(403);
        // The reader after it still gets the page.
        expect((await get(pathname)).status, pathname).toBe(200);
      }
    }
  });

  it('still read robots.txt, the licence and llms.txt', async () => {
    for (const pathname of ['/robots.txt', '/license.xml', '/llms.txt', '/.well-known/llms.txt']) {
      expect((await get(pathname, { 'User-Agent': GPTBOT })).status, pathname).toBe(200);
    }
  });

  it('leave search and retrieval agents alone', async () => {
    for (const agent of [OAI_SEARCHBOT, CLAUDE_USER]) {
      for (const pathname of ['/blog/alpha-post', '/blog/alpha-post.md', '/api/rss']) {
        expect((await get(pathname, { 'User-Agent': agent })).status, `${agent} ${pathname}`).toBe(200);
      }
    }
  });

  describe('with REFUSE_TRAINING_CRAWLERS=0', () => {
    let site: RunningSite;
    beforeAll(async () => {
      site = await startSite({
        contentDir: inject('contentDir'),
        distDir: inject('distDir'),
        siteUrl: inject('siteUrl'),
        port: await freePort(),
        extraEnv: { REFUSE_TRAINING_CRAWLERS: '0' },
      });
    });
    afterAll(async () => {
      await site?.stop();
    });

    it('are only asked, by robots.txt', async () => {
      const response = await fetch(`${site.baseUrl}/blog/alpha-post`, { headers: { 'User-Agent': GPTBOT } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-usage')).toBe('train-ai=n, ai-use=y, search=y');
    });
  });
});

describe('X-Markdown-Tokens', () => {
  it.each(['/blog/alpha-post.md', '/blog/escaping-post.md', '/api/home/markdown', '/llms.txt', '/llms-full.txt', '/index.md'])(
    '%s says how many tokens it is, within a third of o200k_base’s count',
    async (pathname) => {
      const response = await get(pathname);
      const body = await response.text();
      const stated = Number(response.headers.get('x-markdown-tokens'));
      expect(Number.isInteger(stated) && stated > 0).toBe(true);
      expect(stated).toBe(Math.ceil(body.length / 4));
      const counted = encode(body).length;
      expect(stated).toBeGreaterThan(counted * (2 / 3));
      expect(stated).toBeLessThan(counted * (4 / 3));
      // The same on the negotiated URL and on HEAD.
      expect((await get(pathname, {}, 'HEAD')).headers.get('x-markdown-tokens')).toBe(String(stated));
    },
  );

  it('is sent on the negotiated markdown of a page, not on its HTML', async () => {
    const markdown = await get('/blog/alpha-post', { Accept: 'text/markdown' });
    expect(Number(markdown.headers.get('x-markdown-tokens'))).toBe(Math.ceil((await markdown.text()).length / 4));
    expect((await get('/blog/alpha-post', { Accept: 'text/html' })).headers.get('x-markdown-tokens')).toBeNull();
  });
});
