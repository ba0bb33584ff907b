import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SEARCH_AGENTS, TRAINING_CRAWLERS } from '@/lib/agents/terms';
import { cacheHeaders } from '@/lib/http/cache';
import { NEGOTIATED_PATHS } from '@/lib/http/markdown-twins';
import { negotiate } from '@/lib/http/negotiate';
import { HSTS_VALUE, hashSource } from '@/lib/http/security-headers';
import { addVary, policyReadsBody, responseHead, type HeaderList, type RequestFacts } from '@/lib/server/response-headers';
import { ROOT } from '../../support/site';

describe('Vary on negotiated responses', () => {
  it.each([
    [undefined, 'Accept'],
    ['rsc, Accept-Encoding', 'rsc, Accept-Encoding, Accept'],
    ['accept', 'accept'],
    ['*', '*'],
    [['a', 'b'], 'a, b, Accept'],
  ])('adds Accept to %j once', (vary, expected) => {
    expect(addVary(vary, 'Accept')).toBe(expected);
  });
});

const PAGE = '<!DOCTYPE html><html><head><script>boot()</script></head><body><p>hi</p></body></html>';
const read: RequestFacts = { https: false, csp: true, variant: undefined, read: true };
const passing: RequestFacts = { ...read, read: false };
/** The head as an object of name → value, as a client reads it. */
const headOf = (headers: HeaderList) => Object.fromEntries(headers.map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));

describe('the head of every response', () => {
  it('states the terms as Content-Usage on content read (a page, markdown, a feed, JSON), not on other answers', () => {
    for (const type of ['text/html; charset=utf-8', 'text/markdown; charset=utf-8', 'application/rss+xml; charset=utf-8', 'application/json']) {
      expect(headOf(responseHead({ ...read, csp: false }, { status: 200, headers: [['content-type', type]] }))['content-usage'], type).toBe(
        'train-ai=n, ai-use=y, search=y',
      );
    }
    for (const type of ['application/problem+json; charset=utf-8', 'image/png', 'application/xml; charset=utf-8']) {
      expect(headOf(responseHead({ ...read, csp: false }, { status: 200, headers: [['content-type', type]] })), type).not.toHaveProperty('content-usage');
    }
    // A write's answer is not content.
    expect(headOf(responseHead(passing, { status: 202, headers: [['content-type', 'application/json']] }))).not.toHaveProperty('content-usage');
  });

  it('removes the headers Next uses internally, and adds the security headers, Strict-Transport-Security only over https', () => {
    const headers: HeaderList = [
      ['content-type', 'application/json'],
      ['x-middleware-rewrite', '/blog/a/index.md'],
      ['x-nextjs-cache', 'HIT'],
      ['x-custom', 'kept'],
      ['x-frame-options', 'SAMEORIGIN'],
    ];
    const plain = headOf(responseHead(passing, { status: 200, headers }));
    expect(plain).not.toHaveProperty('x-middleware-rewrite');
    expect(plain).not.toHaveProperty('x-nextjs-cache');
    expect(plain).toMatchObject({
      'x-custom': 'kept',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'strict-origin-when-cross-origin',
    });
    expect(plain).not.toHaveProperty('strict-transport-security');
    expect(headOf(responseHead({ ...passing, https: true }, { status: 200, headers }))['strict-transport-security']).toBe(HSTS_VALUE);
  });

  it("gives an HTML page a policy with its inline scripts' hashes when the body is at hand, and without them when it is not", () => {
    const headers: HeaderList = [['content-type', 'text/html; charset=utf-8']];
    const hashed = headOf(responseHead(passing, { status: 200, headers, body: Buffer.from(PAGE) }))['content-security-policy'];
    expect(hashed).toContain(`script-src 'self' ${hashSource('boot()')};`);
    const unread = headOf(responseHead(passing, { status: 200, headers }))['content-security-policy'];
    expect(unread).toContain("script-src 'self';");
  });

  it('keeps a policy the response set itself, gives other types the locked-down one, and sends none when told not to', () => {
    const own: HeaderList = [
      ['content-type', 'text/html'],
      ['content-security-policy', "default-src 'self'"],
    ];
    expect(headOf(responseHead(passing, { status: 200, headers: own, body: Buffer.from(PAGE) }))['content-security-policy']).toBe("default-src 'self'");
    expect(headOf(responseHead(passing, { status: 200, headers: [['content-type', 'application/json']] }))['content-security-policy']).toMatch(
      /^default-src 'none'/,
    );
    expect(
      headOf(responseHead({ ...passing, csp: false }, { status: 200, headers: [['content-type', 'text/html']], body: Buffer.from(PAGE) })),
    ).not.toHaveProperty('content-security-policy');
  });

  it('gives both variants of a negotiated URL one Vary (router headers, Accept, Accept-Encoding), and leaves Vary alone elsewhere', () => {
    const one = 'rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch, Accept, Accept-Encoding';
    const page: HeaderList = [
      ['content-type', 'text/html'],
      ['vary', 'rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch, Accept'],
    ];
    const twin: HeaderList = [
      ['content-type', 'text/markdown'],
      ['vary', 'Accept'],
    ];
    expect(headOf(responseHead({ ...read, variant: 'html' }, { status: 200, headers: page })).vary).toBe(one);
    expect(headOf(responseHead({ ...read, variant: 'markdown' }, { status: 200, headers: twin })).vary).toBe(one);
    expect(headOf(responseHead({ ...passing, variant: 'markdown' }, { status: 404, headers: twin })).vary).toBe(one);
    // A header Next names besides them stays, after the common list.
    expect(headOf(responseHead({ ...passing, variant: 'html' }, { status: 200, headers: [...page.slice(0, 1), ['vary', 'next-url, rsc']] })).vary).toBe(
      `${one}, next-url`,
    );
    const other: HeaderList = [
      ['content-type', 'text/html'],
      ['vary', 'rsc, Accept-Encoding'],
    ];
    expect(headOf(responseHead(passing, { status: 200, headers: other })).vary).toBe('rsc, Accept-Encoding');
  });

  it("on a read, drops Next's ETag, gives a prerendered page the read profile, and keeps Next's router headers in Vary only on pages", () => {
    const page: HeaderList = [
      ['content-type', 'text/html'],
      ['etag', '"next"'],
      ['cache-control', 's-maxage=31536000'],
      ['vary', 'rsc, next-router-state-tree, Accept-Encoding'],
    ];
    const head = headOf(responseHead(read, { status: 200, headers: page }));
    expect(head).not.toHaveProperty('etag');
    expect(head['cache-control']).toBe(cacheHeaders('read')['Cache-Control']);
    expect(head['access-control-allow-origin']).toBe('*');
    expect(head.vary).toBe('rsc, next-router-state-tree, Accept-Encoding');
    const json: HeaderList = [
      ['content-type', 'application/json'],
      ['cache-control', 'no-store'],
      ['vary', 'rsc, next-router-state-tree'],
    ];
    const data = headOf(responseHead(read, { status: 200, headers: json }));
    expect(data['cache-control']).toBe('no-store');
    expect(data).not.toHaveProperty('vary');
    // A response passed through keeps all three.
    expect(headOf(responseHead(passing, { status: 200, headers: [...json, ['etag', '"next"']] }))).toMatchObject({
      etag: '"next"',
      vary: 'rsc, next-router-state-tree',
    });
  });

  it("sends a kept copy with its coding, ETag and length, and a 304 without the body's type, coding or length but with the page's policy", () => {
    const headers: HeaderList = [
      ['content-type', 'text/html; charset=utf-8'],
      ['last-modified', 'Wed, 01 Jan 2025 00:00:00 GMT'],
    ];
    const representation = { coding: 'br' as const, etag: '"abc-br"', length: 42, varyEncoding: true };
    const whole = headOf(responseHead({ ...read, variant: 'html' }, { status: 200, headers, body: Buffer.from(PAGE), representation }));
    expect(whole).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-encoding': 'br',
      etag: '"abc-br"',
      'content-length': '42',
      vary: 'rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch, Accept, Accept-Encoding',
    });
    const notModified = headOf(responseHead({ ...read, variant: 'html' }, { status: 304, headers, body: Buffer.from(PAGE), representation }));
    expect(notModified).toMatchObject({ etag: '"abc-br"', 'last-modified': 'Wed, 01 Jan 2025 00:00:00 GMT', vary: whole.vary });
    for (const name of ['content-type', 'content-encoding', 'content-length']) expect(notModified).not.toHaveProperty(name);
    expect(notModified['content-security-policy']).toBe(whole['content-security-policy']);
    expect(whole['content-security-policy']).toContain(hashSource('boot()'));
    const identity = headOf(
      responseHead(read, { status: 200, headers, body: Buffer.from(PAGE), representation: { ...representation, coding: 'identity', varyEncoding: false } }),
    );
    expect(identity).not.toHaveProperty('content-encoding');
    expect(identity).not.toHaveProperty('vary');
  });
});

describe('whether the policy waits for the body', () => {
  it.each([
    ['an HTML page', 200, [['content-type', 'text/html']], true],
    [
      'a page with a policy of its own',
      200,
      [
        ['content-type', 'text/html'],
        ['content-security-policy', "default-src 'self'"],
      ],
      false,
    ],
    [
      'a compressed page',
      200,
      [
        ['content-type', 'text/html'],
        ['content-encoding', 'gzip'],
      ],
      false,
    ],
    ['JSON', 200, [['content-type', 'application/json']], false],
    ['a 204', 204, [['content-type', 'text/html']], false],
    ['a 304', 304, [['content-type', 'text/html']], false],
  ] as [string, number, HeaderList, boolean][])('%s: %s', (_name, status, headers, expected) => {
    expect(policyReadsBody({ csp: true }, status, headers)).toBe(expected);
    expect(policyReadsBody({ csp: false }, status, headers)).toBe(false);
  });
});

describe("vercel.json, the header rules of a host without lectern's server", () => {
  type Rule = { source: string; headers: { key: string; value: string }[]; missing?: { type: string; key: string; value: string }[] };
  const rules = (JSON.parse(fs.readFileSync(path.join(ROOT, 'vercel.json'), 'utf8')) as { headers: Rule[] }).headers;

  it("gives every negotiated URL Vary: Accept and the read profile, as lectern's server does", () => {
    for (const pattern of NEGOTIATED_PATHS) {
      const rule = rules.find((candidate) => candidate.source === pattern);
      expect(rule, pattern).toBeDefined();
      expect(rule!.headers).toEqual(
        expect.arrayContaining([
          { key: 'Vary', value: 'Accept' },
          { key: 'Cache-Control', value: cacheHeaders('read')['Cache-Control'] },
        ]),
      );
    }
  });

  it('names each negotiated page by a pattern that matches it', () => {
    for (const pattern of NEGOTIATED_PATHS) expect(negotiate(pattern.replace(/:\w+/g, 'x'), undefined), pattern).toBeDefined();
  });

  it('has a rule for nothing else', () => {
    expect(rules.map((rule) => rule.source).sort()).toEqual([...NEGOTIATED_PATHS].sort());
  });

  it("leaves a refused training crawler's 403 uncacheable: no rule applies to a training crawler's request", () => {
    const userAgent = (token: string) => `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ${token}/1.2; +https://example.com/bot)`;
    for (const rule of rules) {
      const conditions = (rule.missing ?? []).filter((condition) => condition.type === 'header' && condition.key.toLowerCase() === 'user-agent');
      const skips = (value: string) => conditions.some((condition) => new RegExp(`^(?:${condition.value})$`).test(value));
      for (const crawler of TRAINING_CRAWLERS) expect(skips(userAgent(crawler)), `${rule.source} for ${crawler}`).toBe(true);
      for (const agent of SEARCH_AGENTS) expect(skips(userAgent(agent)), `${rule.source} for ${agent}`).toBe(false);
      expect(skips('Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0'), rule.source).toBe(false);
    }
  });
});
