import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CLIENT_IP_HEADER, recordClientIp } from '@/lib/http/client-ip';
import { addVaryAccept, isNegotiatedPath } from '@/lib/server/response-headers';

describe('recordClientIp', () => {
  it('replaces a client-sent value with the socket address', () => {
    const headers: IncomingHttpHeaders = { [CLIENT_IP_HEADER]: '203.0.113.9', 'x-forwarded-for': '198.51.100.1' };
    recordClientIp(headers, '127.0.0.5');
    expect(headers[CLIENT_IP_HEADER]).toBe('127.0.0.5');
    expect(headers['x-forwarded-for']).toBe('198.51.100.1');
  });
  it('removes a client-sent value when the socket has no address', () => {
    const headers: IncomingHttpHeaders = { [CLIENT_IP_HEADER]: '203.0.113.9' };
    recordClientIp(headers, undefined);
    expect(headers).not.toHaveProperty(CLIENT_IP_HEADER);
  });
});

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
    ['/blog', false],
    ['/blog/a-post/index.md', false],
    ['/api/blog', false],
  ])('%s negotiates: %s', (pathname, expected) => {
    expect(isNegotiatedPath(pathname)).toBe(expected);
  });
});
