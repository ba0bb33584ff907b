import { describe, expect, it } from 'vitest';
import { originForm, pathDecodes, unroutable, unroutableResponse } from '@/lib/server/unroutable';

describe('pathDecodes', () => {
  it.each(['/', '/blog/alpha-post', '/tags/%E2%82%AC', '/tags/%e2%82%ac', '/a%2Fb', '/a%00b', '/blog/../api/blog', '//api//blog', "/~!$&'()*+,;=:@"])(
    'accepts %s',
    (path) => {
      expect(pathDecodes(path)).toBe(true);
    },
  );

  it.each([
    ['/tags/%ff', 'a byte that never starts UTF-8'],
    ['/blog/%c0%af', 'an overlong form of "/"'],
    ['/tags/%e2%82', 'a sequence cut short'],
    ['/%ed%a0%80', 'an encoded surrogate'],
    ['/%80', 'a lone continuation byte'],
    ['/blog/%', 'a % at the end'],
    ['/blog/%zz', 'a % without hex digits'],
    ['/blog/%4', 'a % with one hex digit'],
  ])('refuses %s (%s)', (path) => {
    expect(pathDecodes(path)).toBe(false);
  });
});

describe('originForm', () => {
  it.each([
    ['/blog/alpha-post?x=1', '/blog/alpha-post?x=1'],
    ['http://evil.example/blog/alpha-post', '/blog/alpha-post'],
    ['HTTPS://example.com:8443?q=1', '/?q=1'],
    ['http://example.com', '/'],
    ['*', '*'],
  ])('takes %s as %s', (target, expected) => {
    expect(originForm(target)).toBe(expected);
  });
});

describe('unroutable', () => {
  it('refuses a target that is not a path', () => {
    expect(unroutable('OPTIONS', '*')).toMatchObject({ problem: 'invalid-path' });
  });

  it('lets reads and posts to the write routes through, whatever the query holds', () => {
    expect(unroutable('GET', '/blog/alpha-post')).toBeUndefined();
    expect(unroutable('POST', '/api/subscribe')).toBeUndefined();
    expect(unroutable('GET', '/api/blog?limit=%ff')).toBeUndefined();
  });

  it('refuses a path that does not decode, for every method', () => {
    for (const method of ['GET', 'HEAD', 'POST', 'OPTIONS']) expect(unroutable(method, '/blog/%ff?x=1')).toMatchObject({ problem: 'invalid-path' });
  });

  it('refuses anything but GET and HEAD outside the write routes, and leaves the write routes their own answers', () => {
    for (const method of ['POST', 'PUT', 'OPTIONS', 'PROPFIND']) {
      expect(unroutable(method, '/blog/no-such-post.md')).toMatchObject({ problem: 'method-not-allowed', allow: 'GET, HEAD' });
      expect(unroutable(method, '/images/a.svg')).toMatchObject({ allow: 'GET, HEAD' });
    }
    expect(unroutable('PUT', '/api/subscribe')).toBeUndefined();
    expect(unroutable('POST', '/api/%73ubscribe')).toBeUndefined();
    expect(unroutable('POST', '/api/payments/webhook')).toBeUndefined();
  });

  it('refuses the methods a Fetch Request cannot carry, allowing what the URL takes', () => {
    expect(unroutable('TRACE', '/blog/alpha-post')).toMatchObject({ problem: 'method-not-allowed', allow: 'GET, HEAD' });
    expect(unroutable('trace', '/api/subscribe')).toMatchObject({ problem: 'method-not-allowed', allow: 'POST' });
    expect(unroutable('TRACK', '/api/payments/webhook')).toMatchObject({ allow: 'POST' });
    expect(unroutable('TRACE', '/mcp')).toMatchObject({ allow: 'OPTIONS, POST' });
  });
});

describe('unroutableResponse', () => {
  const invalid = unroutable('GET', '/x/%ff')!;

  it('answers under /api/ with an RFC 9457 problem', async () => {
    const response = unroutableResponse(invalid, '/api/blog/%ff/markdown', 'text/html');
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await response.json()).toMatchObject({ type: expect.stringMatching(/\/docs\/api#problem-invalid-path$/), title: 'Malformed URL', status: 400 });
  });

  it('answers a .md URL with markdown, whatever Accept says', async () => {
    const response = unroutableResponse(invalid, '/blog/%ff.md', 'text/html');
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('vary')).toBeNull();
    expect(await response.text()).toMatch(/^# Malformed URL\n\n/);
  });

  it('answers a page URL with HTML, or markdown when Accept ranks it first, varying on Accept', async () => {
    const page = unroutableResponse(invalid, '/blog/%ff', 'text/html,application/xhtml+xml,*/*;q=0.8');
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('vary')).toBe('Accept');
    expect(await page.text()).toContain('<h1>Malformed URL</h1>');
    const markdown = unroutableResponse(invalid, '/blog/%ff', 'text/markdown, text/html;q=0.5');
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.headers.get('vary')).toBe('Accept');
  });

  it('says which methods are allowed in a 405', async () => {
    const response = unroutableResponse(unroutable('TRACE', '/api/support')!, '/api/support', undefined);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ status: 405, title: 'Method not allowed' });
  });
});
