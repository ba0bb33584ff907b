import { describe, expect, it } from 'vitest';
import { documentPolicy, HSTS_VALUE, resourcePolicy } from '@/lib/http/security-headers';
import { PLATFORM_DOCUMENT_POLICY, platformHeaders, servesHtml } from '@/lib/http/platform-headers';

describe('servesHtml', () => {
  it.each([
    ['/', false, true],
    ['/blog', false, true],
    ['/blog/a-post', false, true],
    ['/blog/a-post', true, false],
    ['/tags/notes', false, true],
    ['/blog/a-post.md', false, false],
    ['/llms.txt', false, false],
    ['/openapi.json', false, false],
    ['/api/blog', false, false],
    ['/.well-known/api-catalog', false, false],
    ['/healthz', false, false],
    ['/blog/a-post/opengraph-image', false, false],
    ['/icon', false, false],
  ])('%s (markdown asked: %s) serves HTML: %s', (pathname, markdown, expected) => {
    expect(servesHtml(pathname, markdown)).toBe(expected);
  });
});

describe('platformHeaders', () => {
  const base = { siteUrl: 'http://localhost:3000', trustProxy: 0, forwardedProto: null };

  it('states the terms as Content-Usage on pages and markdown, not on other files', () => {
    expect(platformHeaders({ ...base, pathname: '/blog/a-post', markdown: false })['Content-Usage']).toBe('train-ai=n, ai-use=y, search=y');
    expect(platformHeaders({ ...base, pathname: '/blog/a-post', markdown: true })['Content-Usage']).toBe('train-ai=n, ai-use=y, search=y');
    expect(platformHeaders({ ...base, pathname: '/icon', markdown: false })['Content-Usage']).toBeUndefined();
  });

  it("gives a page the page policy with inline elements allowed and every other rule of lectern's own", () => {
    const headers = platformHeaders({ ...base, pathname: '/blog', markdown: false });
    expect(headers['Content-Security-Policy']).toBe(PLATFORM_DOCUMENT_POLICY);
    const others = (policy: string) => policy.split('; ').filter((rule) => !/^(script|style)-src /.test(rule));
    expect(others(PLATFORM_DOCUMENT_POLICY)).toEqual(others(documentPolicy()));
    expect(PLATFORM_DOCUMENT_POLICY).toContain("script-src 'self' 'unsafe-inline'");
    expect(headers['X-Content-Type-Options']).toBe('nosniff');
    expect(headers['X-Frame-Options']).toBe('DENY');
  });

  it('gives markdown and files the policy that loads nothing', () => {
    expect(platformHeaders({ ...base, pathname: '/blog/a-post', markdown: true })['Content-Security-Policy']).toBe(resourcePolicy('text/markdown'));
    expect(platformHeaders({ ...base, pathname: '/api/blog', markdown: false })['Content-Security-Policy']).toBe(resourcePolicy('application/json'));
  });

  it('sends HSTS only over https: an https site URL, or a trusted proxy saying so', () => {
    expect(platformHeaders({ ...base, pathname: '/', markdown: false })['Strict-Transport-Security']).toBeUndefined();
    expect(platformHeaders({ ...base, siteUrl: 'https://example.com', pathname: '/', markdown: false })['Strict-Transport-Security']).toBe(HSTS_VALUE);
    expect(platformHeaders({ ...base, forwardedProto: 'https', pathname: '/', markdown: false })['Strict-Transport-Security']).toBeUndefined();
    expect(platformHeaders({ ...base, trustProxy: 1, forwardedProto: 'https', pathname: '/', markdown: false })['Strict-Transport-Security']).toBe(HSTS_VALUE);
  });
});
