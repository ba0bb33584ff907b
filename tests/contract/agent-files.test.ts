import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { get, url } from '../support/http';

const UNPUBLISHED = ['draft-post', 'future-post', 'SECRET'];

/** The llmstxt.org reference parser (llms_txt/miniparse.py), in JavaScript. */
function parseLlmsTxt(text: string) {
  const linkPattern = /-\s*\[(?<title>[^\]]+)\]\((?<url>[^)]+)\)(?::\s*(?<desc>.*))?/;
  const [start = '', ...rest] = text.split(/^##\s*(.*?$)/m);
  const sections: Record<string, { title: string; url: string; desc?: string }[]> = {};
  for (let i = 0; i + 1 < rest.length; i += 2) {
    sections[rest[i] ?? ''] = (rest[i + 1] ?? '')
      .trim()
      .split(/\n+/)
      .filter((line) => line.trim())
      .map((line) => {
        const match = linkPattern.exec(line);
        if (!match?.groups) throw new Error(`not a link line: ${line}`);
        return match.groups as { title: string; url: string; desc?: string };
      });
  }
  const head = /^#\s*(?<title>.+?$)\n+(?:^>\s*(?<summary>.+?$)$)?\n+(?<info>.*)/ms.exec(start.trim());
  if (!head?.groups) throw new Error('no H1 / summary block');
  const { title = '', summary = '', info = '' } = head.groups;
  return { title, summary, info, sections, sectionOrder: rest.filter((_, index) => index % 2 === 0) };
}

async function expectOk(link: string) {
  const response = await fetch(link, { redirect: 'manual' });
  expect(response.status, link).toBe(200);
}

describe('/llms.txt', () => {
  it('parses with the llmstxt.org reference regexes', async () => {
    const response = await get('/llms.txt');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await response.text();
    expect(text).toMatch(/^# Fixture & Co\n\n> A fixture site for lectern's contract tests\.\n\n[^\n#>]+\n\n## /);
    const parsed = parseLlmsTxt(text);
    expect(parsed.title).toBe('Fixture & Co');
    expect(parsed.summary).toBe("A fixture site for lectern's contract tests.");
    expect(parsed.info).toContain('Republishing whole articles is not permitted');
    expect(parsed.sectionOrder.at(-1)).toBe('Optional');
  });

  it('lists every published post, newest first, by its .md URL, and no other', async () => {
    const parsed = parseLlmsTxt(await (await get('/llms.txt')).text());
    expect(parsed.sections.Posts?.map((link) => link.url)).toEqual(
      ['escaping-post', 'beta-post', 'gamma-post', 'alpha-post'].map((slug) => url(`/blog/${slug}.md`)),
    );
  });

  it('has only links that resolve', async () => {
    const parsed = parseLlmsTxt(await (await get('/llms.txt')).text());
    const links = Object.values(parsed.sections).flat();
    expect(links.length).toBeGreaterThan(8);
    for (const link of links) await expectOk(link.url);
  });

  it('is served the same at /.well-known/llms.txt', async () => {
    const [a, b] = await Promise.all([get('/llms.txt'), get('/.well-known/llms.txt')]);
    expect(b.status).toBe(200);
    expect(await b.text()).toBe(await a.text());
  });

  it('never mentions unpublished posts', async () => {
    const text = await (await get('/llms.txt')).text();
    for (const marker of UNPUBLISHED) expect(text).not.toContain(marker);
  });
});

describe('/llms-full.txt', () => {
  it('holds every published post in full, newest first, with the reuse rule on top', async () => {
    const response = await get('/llms-full.txt');
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await response.text();
    expect(text.slice(0, 400)).toContain('Republishing whole articles is not permitted');
    const headings = [...text.matchAll(/^# (.+)\n\nURL: (\S+)\nPublished: (\S+)/gm)].map((match) => [match[1], match[2], match[3]]);
    expect(headings).toEqual([
      ['Tom & Jerry <script>alert(1)</script> ]]> here', url('/blog/escaping-post'), '2025-04-01T09:30:00+02:00'],
      ['Beta post', url('/blog/beta-post'), '2025-03-05'],
      ['Gamma post', url('/blog/gamma-post'), '2025-03-05'],
      ['Alpha post', url('/blog/alpha-post'), '2025-01-10'],
    ]);
    expect(text).toContain('const answer: number = 42;');
    for (const marker of UNPUBLISHED) expect(text).not.toContain(marker);
  });
});

describe('/pricing.md', () => {
  it('lists the products of content/products with their prices', async () => {
    const response = await get('/pricing.md');
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await response.text();
    expect(text).toContain('| Fixture Training | Training | 490.00 | EUR |');
    expect(text).toContain('| Fixture Book | Book | 29.00 | EUR |');
    expect(text).toContain('Session `spring`, 10 seats: Sunday 1 March 2099, 03:00–07:00 EST (2099-03-01T09:00:00+01:00 to 2099-03-01T13:00:00+01:00)');
  });
});

describe('/robots.txt', () => {
  it('declares the Content-Signal in every group, refuses training crawlers, allows search agents, names the sitemap', async () => {
    const response = await get('/robots.txt');
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const text = await response.text();
    expect(text).toMatch(/^# As a condition of accessing this website/);
    const groups = text.split(/\n(?=User-agent: )/).slice(1);
    const byAgent = new Map(groups.map((group) => [/^User-agent: (.+)$/m.exec(group)?.[1], group]));
    for (const group of groups) expect(group).toContain('Content-Signal: search=yes, ai-input=yes, ai-train=no');
    expect(byAgent.get('*')).toContain('Allow: /');
    const trainingCrawlers = 'GPTBot ClaudeBot anthropic-ai CCBot Google-Extended Applebot-Extended Bytespider meta-externalagent cohere-training-data-crawler';
    for (const bot of trainingCrawlers.split(' ')) {
      expect(byAgent.get(bot), bot).toMatch(/^Disallow: \/$/m);
    }
    for (const bot of ['OAI-SearchBot', 'ChatGPT-User', 'Claude-SearchBot', 'Claude-User', 'PerplexityBot', 'Perplexity-User', 'Googlebot', 'Bingbot']) {
      expect(byAgent.get(bot), bot).toMatch(/^Allow: \/$/m);
    }
    expect(text).toContain(`Sitemap: ${url('/sitemap.xml')}`);
  });
});

describe('/sitemap.xml', () => {
  it('validates against the sitemaps.org XSD', async () => {
    const xml = await (await get('/sitemap.xml')).text();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-sitemap-'));
    const file = path.join(dir, 'sitemap.xml');
    fs.writeFileSync(file, xml);
    const xsd = path.resolve('node_modules/sitemap/schema/sitemap.xsd');
    expect(() => execFileSync('xmllint', ['--noout', '--schema', xsd, file], { stdio: 'pipe' })).not.toThrow();
    fs.rmSync(dir, { recursive: true });
  });

  it('lists every indexable page, with lastmod from the content and seconds, and each resolves', async () => {
    const response = await get('/sitemap.xml');
    expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const xml = await response.text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const entries = new XMLParser({ isArray: (name) => name === 'url' }).parse(xml).urlset.url as { loc: string; lastmod?: string }[];
    const byLoc = new Map(entries.map((entry) => [entry.loc, entry.lastmod]));
    for (const slug of ['escaping-post', 'beta-post', 'gamma-post', 'alpha-post']) expect(byLoc.has(url(`/blog/${slug}`))).toBe(true);
    for (const pathname of ['', '/blog', '/apps', '/pricing', '/tags/testing']) expect(byLoc.has(url(pathname || '/'))).toBe(true);
    expect(byLoc.get(url('/blog/alpha-post'))).toBe('2025-02-01T05:00:00+00:00');
    expect(byLoc.get(url('/blog/escaping-post'))).toBe('2025-04-01T07:30:00+00:00');
    expect(byLoc.get(url('/'))).toBe('2025-04-01T07:30:00+00:00');
    for (const lastmod of byLoc.values()) if (lastmod) expect(lastmod).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/);
    expect(xml).not.toMatch(/draft-post|future-post/);
    for (const loc of byLoc.keys()) await expectOk(loc);
  });
});

describe('/openapi.json', () => {
  async function document() {
    return (await (await get('/openapi.json')).json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }>; description?: string }>>;
    };
  }

  it('is a valid OpenAPI 3.1 document', async () => {
    const spec = await document();
    expect(spec.openapi).toMatch(/^3\.1\./);
    const validator = new Validator();
    const result = await validator.validate(spec as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every path of the spec, with the site as server', async () => {
    const spec = await document();
    expect(spec.servers[0]?.url).toBe(url(''));
    for (const pathname of [
      '/api/blog',
      '/api/blog/{slug}/markdown',
      '/blog/{slug}.md',
      '/blog/{slug}',
      '/api/home/markdown',
      '/api/rss',
      '/api/apps/{slug}/download',
      '/llms.txt',
      '/llms-full.txt',
      '/pricing.md',
      '/openapi.json',
      '/.well-known/api-catalog',
      '/sitemap.xml',
      '/robots.txt',
    ]) {
      expect(spec.paths[pathname]?.get, pathname).toBeDefined();
    }
  });

  it.each([
    ['/api/subscribe', 5, 10],
    ['/api/support', 5, 10],
    ['/api/payments/checkout', 10, 10],
    ['/api/payments/training/checkout', 10, 10],
    ['/api/payments/special-offer/checkout', 10, 10],
    ['/api/booking/cancel', 20, 60],
    ['/api/booking/move', 20, 60],
    ['/api/index-notify', 20, 60],
    ['/api/bounces/postmark', 300, 10],
    ['/api/subscribe/confirm', 20, 60],
    ['/api/subscribe/unsubscribe', 120, 10],
  ])('describes POST %s with its limit (%i per %i minutes) and a 429 with Retry-After and RateLimit headers', async (pathname, requests, minutes) => {
    const spec = await document();
    const post = spec.paths[pathname]?.post;
    expect(post?.description).toContain(`${requests} requests per ${minutes} minutes`);
    const tooMany = post?.responses['429'];
    expect(Object.keys(tooMany?.headers ?? {})).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy']));
    for (const status of ['400', '413', '415']) expect(post?.responses[status], status).toBeDefined();
  });
});

describe('/.well-known/api-catalog', () => {
  it('is an RFC 9727 linkset whose links all resolve', async () => {
    const response = await get('/.well-known/api-catalog');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    const body = (await response.json()) as {
      linkset: { anchor: string; item: { href: string }[]; 'service-desc': { href: string }[]; 'service-doc': { href: string }[] }[];
    };
    const [set] = body.linkset;
    expect(set?.anchor).toBe(url('/.well-known/api-catalog'));
    expect(set?.['service-desc'][0]?.href).toBe(url('/openapi.json'));
    expect(set?.['service-doc'][0]?.href).toBe(url('/docs/api'));
    const items = set?.item.map((item) => item.href) ?? [];
    for (const pathname of [
      '/api/blog',
      '/api/search',
      '/mcp',
      '/.well-known/mcp.json',
      '/api/rss',
      '/api/home/markdown',
      '/llms.txt',
      '/llms-full.txt',
      '/pricing.md',
      '/sitemap.xml',
      '/robots.txt',
    ]) {
      expect(items).toContain(url(pathname));
    }
    // The two endpoints a bare GET does not read: search asks for its query, /mcp for a POST.
    const needMore = new Set([url('/api/search'), url('/mcp')]);
    for (const href of [...items.filter((href) => !needMore.has(href)), set?.['service-desc'][0]?.href ?? '', set?.['service-doc'][0]?.href ?? ''])
      await expectOk(href);
    const search = await get('/api/search');
    expect(search.status).toBe(400);
    expect(((await search.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe('q');
    expect((await fetch(url('/mcp'))).headers.get('allow')).toContain('POST');
  });

  it('declares each link with the media type its URL is served with', async () => {
    const body = (await (await get('/.well-known/api-catalog')).json()) as {
      linkset: { item?: { href: string; type: string }[]; 'service-desc'?: { href: string; type: string }[] }[];
    };
    const links = body.linkset.flatMap((set) => [...(set.item ?? []), ...(set['service-desc'] ?? [])]).filter((link) => !link.href.endsWith('/mcp'));
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) {
      const served = (await fetch(link.href, { redirect: 'manual', headers: { Accept: link.type } })).headers.get('content-type') ?? '';
      if (link.href.endsWith('/api/search')) continue;
      expect(served.split(';')[0], link.href).toBe(link.type.split(';')[0]);
    }
  });

  it('is announced by a Link header on HEAD and on the home page', async () => {
    for (const response of [await get('/.well-known/api-catalog', {}, 'HEAD'), await get('/')]) {
      expect(response.headers.get('link')).toContain('</.well-known/api-catalog>; rel="api-catalog"');
    }
  });
});
