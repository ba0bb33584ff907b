import { describe, expect, it } from 'vitest';
import { deployment, platformProblems } from '@/lib/deploy';

describe('deployment', () => {
  it('reads TRUST_PROXY as a whole number of hops, 0 by default', () => {
    expect(deployment({}).trustProxy).toBe(0);
    expect(deployment({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(() => deployment({ TRUST_PROXY: '-1' })).toThrow(/TRUST_PROXY: must be a whole number/);
    expect(() => deployment({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY: must be a whole number/);
  });

  it("reads CLIENT_IP_HEADER as a lower-case header name and refuses lectern's own", () => {
    expect(deployment({ CLIENT_IP_HEADER: 'X-Real-IP' }).clientIpHeader).toBe('x-real-ip');
    expect(deployment({}).clientIpHeader).toBeUndefined();
    expect(() => deployment({ CLIENT_IP_HEADER: 'x real ip' })).toThrow(/CLIENT_IP_HEADER: must be a header name/);
    expect(() => deployment({ CLIENT_IP_HEADER: 'x-lectern-client-ip' })).toThrow(/CLIENT_IP_HEADER/);
  });

  it('names every bad value in one error', () => {
    expect(() => deployment({ TRUST_PROXY: 'x', CLIENT_IP_HEADER: 'a b', PLATFORM_MODE: 'yes' })).toThrow(
      /TRUST_PROXY[\s\S]*CLIENT_IP_HEADER[\s\S]*PLATFORM_MODE/,
    );
  });

  it('is in platform mode only when PLATFORM_MODE says so', () => {
    expect(deployment({}).platform).toBe(false);
    expect(deployment({ PLATFORM_MODE: '0' }).platform).toBe(false);
    expect(deployment({ PLATFORM_MODE: '1' }).platform).toBe(true);
    expect(deployment({ PLATFORM_MODE: 'true' }).platform).toBe(true);
  });
});

describe('platformProblems', () => {
  const ready = {
    PLATFORM_MODE: '1',
    UPSTASH_REDIS_REST_URL: 'https://example.upstash.io',
    UPSTASH_REDIS_REST_TOKEN: 't',
    SMTP_URL: 'smtp://mail.example.com',
    CLIENT_IP_HEADER: 'x-real-ip',
  };

  it('finds nothing outside platform mode, whatever else is set', () => {
    expect(platformProblems({})).toEqual([]);
  });

  it('finds nothing on a platform with a remote store, SMTP and a client address source', () => {
    expect(platformProblems(ready)).toEqual([]);
    expect(platformProblems({ ...ready, UPSTASH_REDIS_REST_URL: undefined, UPSTASH_REDIS_REST_TOKEN: undefined, REDIS_URL: 'redis://db.example.com' })).toEqual(
      [],
    );
    expect(platformProblems({ ...ready, CLIENT_IP_HEADER: undefined, TRUST_PROXY: '1' })).toEqual([]);
  });

  it('refuses the embedded store, the outbox folder and an unknown client address, each named', () => {
    const problems = platformProblems({ PLATFORM_MODE: '1', MAIL_OUTBOX_DIR: '/tmp/out' });
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/UPSTASH_REDIS_REST_URL[\s\S]*SMTP_URL[\s\S]*MAIL_OUTBOX_DIR[\s\S]*CLIENT_IP_HEADER/);
  });
});
