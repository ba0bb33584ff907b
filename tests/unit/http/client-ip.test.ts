import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { CLIENT_IP_HEADER, CLIENT_IP_PROOF_HEADER, clientAddress, limitKey, parseAddress, recordClientIp, recordedClientIp } from '@/lib/http/client-ip';

/** The request headers Next would see after lectern's server recorded `socket`. */
function recorded(socket: string, forwarded?: string): Headers {
  const incoming: IncomingHttpHeaders = forwarded ? { 'x-forwarded-for': forwarded } : {};
  recordClientIp(incoming, socket);
  return new Headers(incoming as Record<string, string>);
}

describe('parseAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.7 ', '203.0.113.7'],
    ['203.0.113.7:5678', '203.0.113.7'],
    ['2001:db8::1', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['::ffff:203.0.113.7', '::ffff:203.0.113.7'],
  ])('reads %j as %s', (entry, address) => {
    expect(parseAddress(entry)).toBe(address);
  });

  it.each(['999.1.1.1', '1.2.3', '01.2.3.4', 'unknown', 'example.com', '', '203.0.113.7:99999', '[203.0.113.7]', '[2001:db8::1]x', '2001:db8::g'])(
    '%j is not an address',
    (entry) => {
      expect(parseAddress(entry)).toBeUndefined();
    },
  );
});

describe('recordedClientIp', () => {
  it("believes the address lectern's server recorded", () => {
    expect(recordedClientIp(recorded('127.0.0.5'))).toBe('127.0.0.5');
  });

  it('believes no address a client wrote itself, with or without a made-up proof', () => {
    const real = recorded('127.0.0.5');
    const forged = new Headers({ [CLIENT_IP_HEADER]: '203.0.113.9', [CLIENT_IP_PROOF_HEADER]: real.get(CLIENT_IP_PROOF_HEADER)! });
    expect(recordedClientIp(forged)).toBeUndefined();
    expect(recordedClientIp(new Headers({ [CLIENT_IP_HEADER]: '203.0.113.9' }))).toBeUndefined();
    expect(recordedClientIp(new Headers({ [CLIENT_IP_HEADER]: '203.0.113.9', [CLIENT_IP_PROOF_HEADER]: 'AAAA' }))).toBeUndefined();
  });

  it('finds nothing when nothing was recorded', () => {
    expect(recordedClientIp(new Headers())).toBeUndefined();
  });
});

describe('recordClientIp', () => {
  it('replaces client-sent values with the socket address and its proof', () => {
    const headers: IncomingHttpHeaders = { [CLIENT_IP_HEADER]: '203.0.113.9', [CLIENT_IP_PROOF_HEADER]: 'forged', 'x-forwarded-for': '198.51.100.1' };
    recordClientIp(headers, '127.0.0.5');
    expect(headers[CLIENT_IP_HEADER]).toBe('127.0.0.5');
    expect(headers[CLIENT_IP_PROOF_HEADER]).not.toBe('forged');
    expect(headers['x-forwarded-for']).toBe('198.51.100.1');
  });

  it('removes client-sent values when the socket has no address', () => {
    const headers: IncomingHttpHeaders = { [CLIENT_IP_HEADER]: '203.0.113.9', [CLIENT_IP_PROOF_HEADER]: 'forged' };
    recordClientIp(headers, undefined);
    expect(headers).not.toHaveProperty(CLIENT_IP_HEADER);
    expect(headers).not.toHaveProperty(CLIENT_IP_PROOF_HEADER);
  });
});

describe('clientAddress', () => {
  it('is the socket address when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(recorded('127.0.0.1', '203.0.113.7'), { trustProxy: 0 })).toBe('127.0.0.1');
  });

  it('takes the right-most untrusted entry with trusted hops', () => {
    expect(clientAddress(recorded('10.0.0.1', '203.0.113.7'), { trustProxy: 1 })).toBe('203.0.113.7');
    expect(clientAddress(recorded('10.0.0.1', 'forged, 203.0.113.7'), { trustProxy: 1 })).toBe('203.0.113.7');
    expect(clientAddress(recorded('10.0.0.1', 'forged, 203.0.113.7, 10.0.0.2'), { trustProxy: 2 })).toBe('203.0.113.7');
  });

  it('strips the port a proxy wrote, so one client is one key', () => {
    expect(clientAddress(recorded('10.0.0.1', '203.0.113.7:5678'), { trustProxy: 1 })).toBe('203.0.113.7');
    expect(clientAddress(recorded('10.0.0.1', '[2001:db8::1]:443'), { trustProxy: 1 })).toBe('2001:db8::1');
    expect(clientAddress(recorded('10.0.0.1', '[2001:db8::1]'), { trustProxy: 1 })).toBe('2001:db8::1');
  });

  it('never takes an entry that is not an address: the proxy that passed it on counts instead', () => {
    expect(clientAddress(recorded('10.0.0.1'), { trustProxy: 1 })).toBe('10.0.0.1');
    expect(clientAddress(recorded('10.0.0.1', 'not-an-ip'), { trustProxy: 1 })).toBe('10.0.0.1');
    expect(clientAddress(recorded('10.0.0.1', '999.1.1.1'), { trustProxy: 1 })).toBe('10.0.0.1');
    expect(clientAddress(recorded('10.0.0.1', '203.0.113.7, unknown, 10.0.0.2'), { trustProxy: 2 })).toBe('10.0.0.2');
  });

  it("is undefined without an address recorded by lectern's server and nothing declared, whatever the client sent", () => {
    const forged = new Headers({ [CLIENT_IP_HEADER]: '203.0.113.9', 'x-forwarded-for': '203.0.113.7', 'x-real-ip': '203.0.113.8' });
    expect(clientAddress(forged, { trustProxy: 0 })).toBeUndefined();
    expect(clientAddress(new Headers(), { trustProxy: 0 })).toBeUndefined();
  });

  it("without lectern's server, believes only the header the operator named for the platform's edge", () => {
    const headers = new Headers({ [CLIENT_IP_HEADER]: '203.0.113.9', 'x-forwarded-for': '198.51.100.1', 'x-real-ip': '203.0.113.8' });
    expect(clientAddress(headers, { trustProxy: 0, clientIpHeader: 'x-real-ip' })).toBe('203.0.113.8');
    // An edge that appends rather than overwrites: its own entry, the last, counts.
    expect(clientAddress(new Headers({ 'x-real-ip': '198.51.100.1, 203.0.113.8' }), { trustProxy: 0, clientIpHeader: 'x-real-ip' })).toBe('203.0.113.8');
    expect(clientAddress(new Headers({ 'x-real-ip': 'unknown' }), { trustProxy: 0, clientIpHeader: 'x-real-ip' })).toBeUndefined();
    expect(clientAddress(new Headers({ 'x-forwarded-for': '203.0.113.7' }), { trustProxy: 0, clientIpHeader: 'x-real-ip' })).toBeUndefined();
  });

  it("without lectern's server, takes the X-Forwarded-For entry the trusted hops wrote", () => {
    expect(clientAddress(new Headers({ 'x-forwarded-for': 'forged, 203.0.113.7' }), { trustProxy: 1 })).toBe('203.0.113.7');
    expect(clientAddress(new Headers({ 'x-forwarded-for': 'forged, 203.0.113.7, 10.0.0.2' }), { trustProxy: 2 })).toBe('203.0.113.7');
    expect(clientAddress(new Headers({ 'x-forwarded-for': 'unknown' }), { trustProxy: 1 })).toBeUndefined();
    expect(clientAddress(new Headers(), { trustProxy: 1 })).toBeUndefined();
  });
});

describe('limitKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:0::/56'],
    ['2001:db8:1:2ff::9', '2001:db8:1:200::/56'],
    ['2001:DB8:1:12ff:ffff::1', '2001:db8:1:1200::/56'],
    ['::1', '0:0:0:0::/56'],
  ])('%s is limited as %s by default', (address, key) => {
    expect(limitKey(address)).toBe(key);
  });

  it.each([
    [64, '2001:db8:1:2ff::/64'],
    [56, '2001:db8:1:200::/56'],
    [48, '2001:db8:1:0::/48'],
  ] as const)('counts an IPv6 client by its /%i when asked', (prefix, key) => {
    expect(limitKey('2001:db8:1:2ff:aaaa::9', prefix)).toBe(key);
    expect(limitKey('203.0.113.7', prefix)).toBe('203.0.113.7');
  });
});
