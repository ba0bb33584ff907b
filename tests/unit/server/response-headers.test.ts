import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheHeaders } from '@/lib/http/cache';
import { NEGOTIATED_PATHS } from '@/lib/http/markdown-twins';
import { addVaryAccept, isNegotiatedPath } from '@/lib/server/response-headers';
import { ROOT } from '../../support/site';

describe('Vary on negotiated responses', () => {
  it.each([
    [undefined, 'Accept'],
    ['rsc, Accept-Encoding', 'rsc, Accept-Encoding, Accept'],
    ['accept', 'accept'],
    ['*', '*'],
    [['a', 'b'], 'a, b, Accept'],
  ])('adds Accept to %j once', (vary, expected) => {
    expect(addVaryAccept(vary)).toBe(expected);
  });
  it.each([
    ['/blog/a-post', true],
    ['/blog/a-post.md', false],
    ['/blog', true],
    ['/blog.md', false],
    ['/blog/a-post/index.md', false],
    ['/', true],
    ['/index.md', false],
    ['/tags/http', true],
    ['/tags/http.md', false],
    ['/tags', false],
    ['/pricing', true],
    ['/pricing.md', false],
    ['/apps', true],
    ['/docs/api', true],
    ['/docs', false],
    ['/support', true],
    ['/support/sent', false],
    ['/subscribe/confirmed', false],
    ['/api/blog', false],
    ['/api/home/markdown', false],
  ])('%s negotiates: %s', (pathname, expected) => {
    expect(isNegotiatedPath(pathname)).toBe(expected);
  });
});

describe('vercel.json, the header rules of a host without lectern\'s server', () => {
  type Rule = { source: string; headers: { key: string; value: string }[] };
  const rules = (JSON.parse(fs.readFileSync(path.join(ROOT, 'vercel.json'), 'utf8')) as { headers: Rule[] }).headers;

  it('gives every negotiated URL Vary: Accept and the read profile, as lectern\'s server does', () => {
    for (const pattern of NEGOTIATED_PATHS) {
      const rule = rules.find((candidate) => candidate.source === pattern);
      expect(rule, pattern).toBeDefined();
      expect(rule!.headers).toEqual(expect.arrayContaining([{ key: 'Vary', value: 'Accept' }, { key: 'Cache-Control', value: cacheHeaders('read')['Cache-Control'] }]));
    }
  });

  it('names each negotiated page by a pattern that matches it', () => {
    for (const pattern of NEGOTIATED_PATHS) expect(isNegotiatedPath(pattern.replace(/:\w+/g, 'x')), pattern).toBe(true);
  });

  it('has a rule for nothing else', () => {
    expect(rules.map((rule) => rule.source).sort()).toEqual([...NEGOTIATED_PATHS].sort());
  });
});
