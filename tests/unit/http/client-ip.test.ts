import { describe, expect, it } from 'vitest';
import { CLIENT_IP_HEADER, clientAddress, limitKey } from '@/lib/http/client-ip';

const headers = (socket: string, forwarded?: string) => new Headers({ [CLIENT_IP_HEADER]: socket, ...(forwarded ? { 'x-forwarded-for': forwarded } : {}) });

describe('clientAddress', () => {
  it('is the socket address when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(headers('127.0.0.1', '203.0.113.7'), 0)).toBe('127.0.0.1');
  });
  it('takes the right-most untrusted entry with trusted hops', () => {
    expect(clientAddress(headers('10.0.0.1', '203.0.113.7'), 1)).toBe('203.0.113.7');
    expect(clientAddress(headers('10.0.0.1', 'forged, 203.0.113.7'), 1)).toBe('203.0.113.7');
    expect(clientAddress(headers('10.0.0.1', 'forged, 203.0.113.7, 10.0.0.2'), 2)).toBe('203.0.113.7');
  });
  it('falls back to the socket when the header is missing or not an address', () => {
    expect(clientAddress(headers('10.0.0.1'), 1)).toBe('10.0.0.1');
    expect(clientAddress(headers('10.0.0.1', 'not-an-ip'), 1)).toBe('10.0.0.1');
  });
});

describe('limitKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:ffff::1', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    [undefined, 'unknown'],
  ])('%s is limited as %s', (address, key) => {
    expect(limitKey(address)).toBe(key);
  });
});
