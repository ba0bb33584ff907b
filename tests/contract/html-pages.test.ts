import { describe, expect, it } from 'vitest';
import { get, url } from '../support/http';

async function page(pathname: string) {
  const response = await get(pathname);
  return { response, html: await response.text() };
}

function attr(html: string, pattern: RegExp): string | undefined {
  return pattern.exec(html)?.[1];
}

/** The attributes of every `<tag ...>` in the page, order-independent. */
function tagsOf(html: string, tag: string): Record<string, string>[] {
  return [...html.matchAll(new RegExp(`<${tag}\\s([^>]*?)/?>`, 'g'))].map((match) =>
    Object.fromEntries([...(match[1] ?? '').matchAll(/([\w:-]+)="([^"]*)"/g)].map((attribute) => [attribute[1], attribute[2]])),
  );
}

const decode = (text: string) =>
  text
    .replace(/<!-- -->/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&');

describe('HTML pages', () => {
  it.each([
    ['/', 'Fixture home'],
    ['/blog', 'Blog'],
    ['/blog/alpha-post', 'Alpha post'],
    ['/tags/testing', 'Posts tagged “testing”'],
    ['/apps', 'Desktop apps'],
    ['/pricing', 'Pricing'],
    ['/docs/api', 'API and agent files'],
  ])('%s has a title, description, canonical URL, Open Graph tags and the RSS link', async (pathname, heading) => {
    const { response, html } = await page(pathname);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(decode(attr(html, /<h1[^>]*>(.*?)<\/h1>/) ?? '')).toBe(heading);
    expect(attr(html, /<title>([^<]+)<\/title>/)).toBeTruthy();
    expect(attr(html, /<meta name="description" content="([^"]+)"/)).toBeTruthy();
    expect(attr(html, /<link rel="canonical" href="([^"]+)"/)).toBe(pathname === '/' ? url('') : url(pathname));
    expect(attr(html, /<meta property="og:title" content="([^"]+)"/)).toBeTruthy();
    expect(attr(html, /<meta property="og:url" content="([^"]+)"/)).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
    expect(tagsOf(html, 'link')).toContainEqual(expect.objectContaining({ rel: 'alternate', type: 'application/rss+xml', href: url('/api/rss') }));
  });

  it('shows a post with dates, reading time, tags, table of contents and highlighted code', async () => {
    const { html } = await page('/blog/alpha-post');
    // Date-only: midnight in the site's time zone (the fixture's is New York).
    expect(html).toContain('<time dateTime="2025-01-10T00:00:00-05:00">January 10, 2025</time>');
    expect(html).toContain('<time dateTime="2025-02-01T00:00:00-05:00">February 1, 2025</time>');
    expect(html).toMatch(/\d+ min read/);
    expect(html).toContain('href="/tags/http"');
    expect(html).toContain('href="/tags/testing"');
    expect(html).toMatch(/<nav class="toc"[\s\S]*href="#introduction"[\s\S]*href="#details"[\s\S]*<\/nav>/);
    expect(html).toMatch(/<pre class="shiki[^"]*"/);
    expect(html).toContain('<table>');
  });

  it('advertises the markdown of a post in HTML and as a Link header', async () => {
    const { response, html } = await page('/blog/alpha-post');
    expect(tagsOf(html, 'link')).toContainEqual(expect.objectContaining({ rel: 'alternate', type: 'text/markdown', href: url('/blog/alpha-post.md') }));
    expect(response.headers.get('link')).toBe(`<${url('/blog/alpha-post.md')}>; rel="alternate"; type="text/markdown"`);
  });

  it('describes a post as a BlogPosting in JSON-LD', async () => {
    const { html } = await page('/blog/alpha-post');
    const json = attr(html, /<script type="application\/ld\+json">(.*?)<\/script>/);
    const data = JSON.parse(json ?? '{}');
    expect(data).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'BlogPosting',
      headline: 'Alpha post',
      datePublished: '2025-01-10T00:00:00-05:00',
      dateModified: '2025-02-01T00:00:00-05:00',
      url: url('/blog/alpha-post'),
    });
  });

  it('escapes markup in a title everywhere in the page', async () => {
    const { html } = await page('/blog/escaping-post');
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(attr(html, /<title>([^<]+)<\/title>/)).toBe('Tom &amp; Jerry &lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; here · Fixture &amp; Co');
    const json = attr(html, /<script type="application\/ld\+json">(.*?)<\/script>/) ?? '';
    expect(JSON.parse(json).headline).toBe('Tom & Jerry <script>alert(1)</script> ]]> here');
  });

  it('never executes raw HTML from a post', async () => {
    const { html } = await page('/blog/alpha-post');
    expect(html).not.toContain('alert("raw html")');
    expect(html).not.toContain('onerror');
  });

  it('lists every published post on the home page (the blog index pages them: pagination.test.ts)', async () => {
    const { html } = await page('/');
    for (const slug of ['escaping-post', 'beta-post', 'gamma-post', 'alpha-post']) expect(html).toContain(`href="/blog/${slug}"`);
  });

  it('shows apps with their download link and products with their prices', async () => {
    expect((await page('/apps')).html).toContain('href="/api/apps/fixture-app/download"');
    const pricing = (await page('/pricing')).html;
    expect(pricing).toContain('€490.00');
    expect(pricing).toContain('€29.00');
    expect(pricing.indexOf('Fixture Training')).toBeLessThan(pricing.indexOf('Fixture Book'));
    // Built without Stripe keys: says so, and offers no buy button that would fail on click.
    expect(pricing).toContain('Purchases are not available on this site right now');
    expect(pricing).not.toContain('action="/api/payments/');
    expect(pricing.replace(/<!-- -->/g, '')).toContain('7 days before your session starts');
  });

  it.each(['/no-such-page', '/blog/no-such-post', '/tags/no-such-tag'])('%s is the HTML 404 page', async (pathname) => {
    const { response, html } = await page(pathname);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toContain('Page not found');
  });
});
