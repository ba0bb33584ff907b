import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, inject, it } from 'vitest';
import { freshAddress, request } from '../support/client';
import { get, url } from '../support/http';
import { freePort, startSite } from '../support/site';

type Result = {
  slug: string;
  title: string;
  description: string;
  date: string;
  tags: string[];
  url: string;
  markdownUrl: string;
  section: string | null;
  sectionUrl: string;
  snippet: string;
  marks: { start: number; end: number }[];
};
type SearchBody = { query: string; total: number; results: Result[] };

/** The words a result marks in its snippet. */
const marked = (result: Result | undefined) => result?.marks.map(({ start, end }) => result.snippet.slice(start, end));

async function search(query: string): Promise<SearchBody> {
  const response = await get(`/api/search?${query}`);
  expect(response.status, query).toBe(200);
  return (await response.json()) as SearchBody;
}

describe('GET /api/search', () => {
  it('ranks a post whose title holds the word above one that only mentions it in its text', async () => {
    const response = await get('/api/search?q=alpha');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as SearchBody;
    expect(body.query).toBe('alpha');
    expect(body.results.map((result) => result.slug)).toEqual(['alpha-post', 'gamma-post']);
    expect(body.total).toBe(2);
  });

  it('gives each result its fields, absolute URLs and a plain-text snippet holding the match', async () => {
    const { results } = await search('q=alpha');
    expect(results[0]).toEqual({
      slug: 'alpha-post',
      title: 'Alpha post',
      description: 'The first fixture post, with code and a table.',
      date: '2025-01-10',
      tags: ['http', 'testing'],
      url: url('/blog/alpha-post'),
      markdownUrl: url('/blog/alpha-post.md'),
      section: null,
      sectionUrl: url('/blog/alpha-post'),
      snippet: expect.any(String) as string,
      marks: [],
    });
    expect(results[1]?.snippet).toBe('Gamma body. It follows the alpha post in the series.');
    for (const result of results) expect(result.snippet).not.toMatch(/[<>`#]|\]\(/);
  });

  it('names the section of the best match and links to its anchor on the page, marking the matched words', async () => {
    const [result] = (await search('q=sibling+relative')).results;
    expect(result).toMatchObject({ slug: 'alpha-post', section: 'Details', sectionUrl: url('/blog/alpha-post#details') });
    expect(marked(result)).toEqual(['Relative', 'sibling']);
    // The anchor is the heading's id on the rendered page.
    expect(await (await get('/blog/alpha-post')).text()).toMatch(/<h3 id="details">/);
    const [gamma] = (await search('q=gamma+series')).results;
    expect(gamma).toMatchObject({ slug: 'gamma-post', section: null, sectionUrl: url('/blog/gamma-post') });
    expect(marked(gamma)).toEqual(['Gamma', 'series']);
    // Offsets count UTF-16 code units of the snippet, accents folded for matching, the word kept as written.
    const [cafe] = (await search('q=cafe')).results;
    expect(marked(cafe)).toEqual(['Café']);
  });

  it('finds words by prefix, in any case, and with a small typo', async () => {
    expect((await search('q=GAMM')).results[0]?.slug).toBe('gamma-post');
    expect((await search('q=seriez')).results.map((result) => result.slug)).toEqual(['gamma-post']);
  });

  it('answers at most limit results, counting them all in total', async () => {
    const body = await search('q=post&limit=1');
    expect(body.results).toHaveLength(1);
    expect(body.total).toBe(3);
    expect((await search('q=post')).results.map((result) => result.slug).sort()).toEqual(['alpha-post', 'beta-post', 'gamma-post']);
  });

  it('never finds a draft or a future post', async () => {
    for (const q of ['secret', 'draft', 'SECRET-DRAFT-MARKER', 'SECRET-FUTURE-MARKER', 'future', 'never appear']) {
      const body = await search(`q=${encodeURIComponent(q)}`);
      expect(body, q).toEqual({ query: q, total: 0, results: [] });
    }
  });

  it('is a cacheable public read, like every dynamic read', async () => {
    const response = await get('/api/search?q=beta');
    expect(response.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30, stale-while-revalidate=30');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    // The newest change among the published fixture posts (escaping-post, dated 2025-04-01T09:30+02:00), as for /api/blog.
    expect(Date.parse(response.headers.get('last-modified') ?? '')).toBe(Date.UTC(2025, 3, 1, 7, 30));
  });

  it.each([
    ['', 'q'],
    ['q=', 'q'],
    ['q=%20%20', 'q'],
    [`q=${'a'.repeat(201)}`, 'q'],
    ['q=a&q=b', 'q'],
    [`q=${Array.from({ length: 11 }, (_, i) => `word${i}`).join('+')}`, 'q'],
    ['q=alpha&limit=0', 'limit'],
    ['q=alpha&limit=51', 'limit'],
    ['q=alpha&limit=abc', 'limit'],
    ['q=alpha&limit=2.5', 'limit'],
  ])('answers 400 problem+json to %j, naming %s', async (query, field) => {
    const response = await get(`/api/search${query ? `?${query}` : ''}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const problem = (await response.json()) as { type: string; title: string; status: number; detail: string; errors: { path: string }[] };
    expect(problem).toMatchObject({ type: url('/docs/api#problem-invalid-query'), title: 'Invalid query parameter', status: 400 });
    expect(problem.detail).toMatch(new RegExp(`^${field} `));
    expect(problem.errors.map((error) => error.path)).toEqual([field]);
  });

  it('says what is wrong with a query too long or of too many words', async () => {
    const long = (await (await get(`/api/search?q=${'a'.repeat(201)}`)).json()) as { detail: string };
    expect(long.detail).toBe('q must be at most 200 characters');
    const many = (await (await get(`/api/search?q=${Array.from({ length: 11 }, (_, i) => `word${i}`).join('+')}`)).json()) as { detail: string };
    expect(many.detail).toBe('q must have at most 10 different words (repeated words and common ones such as "the" are not counted)');
    // A word repeated, and common English words, count once and not at all: the same search as the word alone.
    const repeated = await search(`q=${encodeURIComponent(`${'alpha '.repeat(30)}the of and`)}`);
    expect(repeated.results.map((result) => result.slug)).toEqual((await search('q=alpha')).results.map((result) => result.slug));
  });

  it("has its one index built in lectern's server's search thread when the server starts, before any search", async () => {
    const port = await freePort();
    const site = await startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port,
      extraEnv: { POSTS_PER_PAGE: '1', PRERENDER_POSTS: '2', PREWARM: '0' },
    });
    try {
      // Built by the search thread before the server listened: its line comes before the one saying it
      // listens. The server's own thread builds none, neither at start nor for a search or the search page.
      const output = site.output();
      expect(output).toMatch(/search thread ready: 4 posts indexed in \d+ ms\n[\s\S]*lectern production server on /);
      expect((await fetch(`${site.baseUrl}/api/search?q=alpha`)).status).toBe(200);
      const page = await fetch(`${site.baseUrl}/search?q=alpha`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('/blog/alpha-post');
      expect(site.output()).not.toMatch(/search index of/);
    } finally {
      await site.stop();
    }
  });

  it('is never rate limited', async () => {
    const from = freshAddress();
    const statuses = new Set<number>();
    for (let i = 0; i < 130; i++) statuses.add((await request(inject('baseUrl'), `/api/search?q=post${i % 2 ? '' : 's'}`, { from })).status);
    expect([...statuses]).toEqual([200]);
  });
});

describe('/search', () => {
  it('shows results with links and snippets for a plain GET, without JavaScript', async () => {
    const response = await get('/search?q=alpha');
    expect(response.status).toBe(200);
    const html = await response.text();
    const results = html.slice(html.indexOf('class="post-list search-results"'));
    expect(results.indexOf('href="/blog/alpha-post"')).toBeGreaterThan(-1);
    expect(results.indexOf('href="/blog/gamma-post"')).toBeGreaterThan(results.indexOf('href="/blog/alpha-post"'));
    expect(html).toContain('Gamma body. It follows the <mark>alpha</mark> post in the series.');
    expect(html).toContain('2 posts match “alpha”');
    expect(html).toMatch(/<input[^>]*id="search-q"[^>]*value="alpha"/);
  });

  it('links each result to the section of its best match and marks the matched words, escaped', async () => {
    const html = await (await get('/search?q=sibling')).text();
    const results = html.slice(html.indexOf('class="post-list search-results"'));
    expect(results).toMatch(/<a class="section-link" href="\/blog\/alpha-post#details">Details<\/a>/);
    expect(results).toContain('<mark>sibling</mark>');
    const escaping = await (await get('/search?q=cafe')).text();
    expect(escaping).toContain('<mark>Café</mark> body with unicode');
    // A title with markup stays text.
    expect(escaping).toContain('Tom &amp; Jerry &lt;script&gt;');
  });

  it('says so when nothing matches, and escapes the query', async () => {
    const response = await get(`/search?q=${encodeURIComponent('<b>zebra</b>')}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('No post matches “&lt;b&gt;zebra&lt;/b&gt;”');
    expect(html).not.toContain('<b>zebra</b>');
  });

  it('asks for words when the query is empty or missing, and refuses a query too long, with no error page', async () => {
    for (const path of ['/search', '/search?q=', '/search?q=%20']) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).toContain('Type one or more words to search');
    }
    const long = await get(`/search?q=${'a'.repeat(201)}`);
    expect(long.status).toBe(200);
    expect(await long.text()).toContain('That search cannot be run: it must be at most 200 characters.');
    const many = await get(`/search?q=${Array.from({ length: 11 }, (_, i) => `word${i}`).join('+')}`);
    expect(many.status).toBe(200);
    expect(await many.text()).toContain('That search cannot be run: it must have at most 10 different words');
  });

  it('never lists a draft or a future post', async () => {
    const html = await (await get('/search?q=secret')).text();
    expect(html).not.toContain('draft-post');
    expect(html).toContain('No post matches');
  });
});

describe('search_posts over MCP, with the SDK client', () => {
  it('gives each result the section, its anchor URL and the marked words, as /api/search does', async () => {
    const client = new Client({ name: 'lectern-search-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url('/mcp'))));
    try {
      const result = await client.callTool({ name: 'search_posts', arguments: { query: 'sibling relative' } });
      expect(result.isError).toBeFalsy();
      const found = result.structuredContent as SearchBody;
      expect(found).toEqual(await search('q=sibling%20relative'));
      expect(found.results[0]).toMatchObject({ slug: 'alpha-post', section: 'Details', sectionUrl: url('/blog/alpha-post#details') });
      expect(marked(found.results[0])).toEqual(['Relative', 'sibling']);
      const many = await client.callTool({ name: 'search_posts', arguments: { query: Array.from({ length: 11 }, (_, i) => `word${i}`).join(' ') } });
      expect(many.isError).toBe(true);
      expect(JSON.stringify(many.content)).toContain('at most 10 different words');
    } finally {
      await client.close();
    }
  });
});

describe('the search box in the header', () => {
  it.each(['/', '/blog', '/blog/alpha-post'])('is a labelled GET form to /search on %s', async (path) => {
    const html = await (await get(path)).text();
    const header = html.slice(html.indexOf('<header'), html.indexOf('</header>'));
    const form = /<form\b[^>]*>/.exec(header)?.[0] ?? '';
    for (const attribute of ['action="/search"', 'method="get"', 'role="search"', 'aria-label="Search the site"']) expect(form).toContain(attribute);
    expect(header).toMatch(/<label for="site-search-q"[^>]*>Search the site<\/label>/);
    const input = /<input\b[^>]*>/.exec(header)?.[0] ?? '';
    for (const attribute of ['id="site-search-q"', 'type="search"', 'name="q"']) expect(input).toContain(attribute);
  });
});
