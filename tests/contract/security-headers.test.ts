import { describe, expect, it } from 'vitest';
import { inlineHashes, resourcePolicy } from '@/lib/http/security-headers';
import { freshAddress, postJson } from '../support/client';
import { get, url } from '../support/http';

function directive(policy: string | null, name: string): string[] {
  const part = (policy ?? '')
    .split(';')
    .map((item) => item.trim())
    .find((item) => item.startsWith(`${name} `));
  return part ? part.split(/\s+/).slice(1) : [];
}

function expectFixedHeaders(response: Headers | Record<string, string | string[] | undefined>) {
  const value = (name: string) => (response instanceof Headers ? response.get(name) : (response[name] as string | undefined));
  expect(value('x-content-type-options')).toBe('nosniff');
  expect(value('referrer-policy')).toBe('strict-origin-when-cross-origin');
  expect(value('permissions-policy')).toMatch(/camera=\(\)/);
  expect(value('x-frame-options')).toBe('DENY');
  // Served over plain http on loopback: no HSTS.
  expect(value('strict-transport-security') ?? null).toBeNull();
}

describe('security headers', () => {
  it.each(['/', '/blog', '/blog/alpha-post', '/pricing', '/docs/api'])('%s: a hash-based policy that covers exactly its inline scripts', async (pathname) => {
    const response = await get(pathname);
    expect(response.status).toBe(200);
    const html = await response.text();
    const policy = response.headers.get('content-security-policy');
    const { scripts, styles } = inlineHashes(html);
    expect(scripts.length).toBeGreaterThan(0);
    expect(directive(policy, 'script-src')).toEqual(["'self'", ...scripts]);
    expect(directive(policy, 'style-src')).toEqual(["'self'", ...styles]);
    expect(directive(policy, 'frame-ancestors')).toEqual(["'none'"]);
    expect(directive(policy, 'base-uri')).toEqual(["'none'"]);
    expect(directive(policy, 'object-src')).toEqual(["'none'"]);
    expect(directive(policy, 'form-action')).toEqual(["'self'", 'https://checkout.stripe.com']);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|nonce-/);
    // No inline style attributes: highlighted code uses classes.
    expect(html).not.toMatch(/<[a-z][^>]*\sstyle="/);
    expectFixedHeaders(response.headers);
  });

  it('sends the same policy with every copy of a cached page: gzip, HEAD and 304', async () => {
    const first = await get('/blog/alpha-post');
    const policy = first.headers.get('content-security-policy');
    await first.arrayBuffer();
    const zipped = await get('/blog/alpha-post', { 'Accept-Encoding': 'gzip' });
    const head = await get('/blog/alpha-post', {}, 'HEAD');
    const notModified = await get('/blog/alpha-post', { 'If-None-Match': first.headers.get('etag') ?? '' });
    expect(notModified.status).toBe(304);
    for (const response of [zipped, head, notModified]) {
      expect(response.headers.get('content-security-policy')).toBe(policy);
      expectFixedHeaders(response.headers);
    }
  });

  it('the not-found page has its own hash-based policy', async () => {
    const response = await get('/no-such-page');
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(directive(response.headers.get('content-security-policy'), 'script-src')).toEqual(["'self'", ...inlineHashes(html).scripts]);
    expectFixedHeaders(response.headers);
  });

  it.each([
    ['/api/blog', 'application/json'],
    ['/blog/alpha-post.md', 'text/markdown'],
    ['/api/rss', 'application/rss+xml'],
    ['/llms.txt', 'text/markdown'],
    ['/sitemap.xml', 'application/xml'],
  ])('%s: nothing may load or frame it', async (pathname, type) => {
    const response = await get(pathname);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain(type);
    expect(response.headers.get('content-security-policy')).toBe(resourcePolicy(type));
    expectFixedHeaders(response.headers);
  });

  it('redirects and write answers carry the headers too', async () => {
    const redirect = await get('/api/apps/fixture-app/download');
    expect(redirect.status).toBe(302);
    expectFixedHeaders(redirect.headers);
    expect(redirect.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    const problem = await postJson(url('/'), '/api/subscribe', { email: 'not-an-address' }, { from: freshAddress() });
    expect(problem.status).toBe(400);
    expectFixedHeaders(problem.headers);
    expect(problem.headers['content-security-policy']).toMatch(/^default-src 'none'/);
  });
});
