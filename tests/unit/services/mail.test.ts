import { describe, expect, it } from 'vitest';
import { subscribersCsv } from '@/lib/subscribers/csv';
import { mailSettings } from '@/lib/services/mail/settings';
import { backoffMs } from '@/lib/services/mail/worker';
import { sameSecret } from '@/lib/services/tokens';

describe('mail retry backoff', () => {
  it('doubles from the base and stops growing at 30 minutes', () => {
    expect([1, 2, 3, 4].map((attempt) => backoffMs(attempt, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffMs(40, 1000)).toBe(30 * 60 * 1000);
  });
});

describe('sameSecret', () => {
  it('is true only for the same secret', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abd')).toBe(false);
    expect(sameSecret('abc', 'abcd')).toBe(false);
    expect(sameSecret('', 'abc')).toBe(false);
  });
});

describe('subscribersCsv', () => {
  it('quotes what needs quoting and defuses spreadsheet formulas', () => {
    const csv = subscribersCsv([
      { email: 'a@example.com', name: 'Smith, "Jo"', status: 'confirmed', createdAt: 0, confirmedAt: 1000 },
      { email: 'b@example.com', name: '=HYPERLINK("x")', status: 'pending', createdAt: 0 },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'email,name,status,subscribed_at,confirmed_at',
      'a@example.com,"Smith, ""Jo""",confirmed,1970-01-01T00:00:00.000Z,1970-01-01T00:00:01.000Z',
      `b@example.com,"'=HYPERLINK(""x"")",pending,1970-01-01T00:00:00.000Z,`,
      '',
    ]);
  });
});

describe('mailSettings', () => {
  it('keeps sent mail 30 days by default and takes MAIL_RETENTION_DAYS in whole days, 0 included', () => {
    expect(mailSettings({})).toEqual({ pollMs: 5000, retryBaseMs: 5000, retentionMs: 30 * 24 * 60 * 60 * 1000 });
    expect(mailSettings({ MAIL_RETENTION_DAYS: '0' }).retentionMs).toBe(0);
    expect(mailSettings({ MAIL_RETENTION_DAYS: '7', MAIL_POLL_MS: '200' })).toMatchObject({ pollMs: 200, retentionMs: 7 * 24 * 60 * 60 * 1000 });
  });

  it('names every bad value in one error', () => {
    expect(() => mailSettings({ MAIL_RETENTION_DAYS: 'a month', MAIL_POLL_MS: '-1' })).toThrow(
      /MAIL_POLL_MS: must be more than 0\n\s+MAIL_RETENTION_DAYS: must be a whole number of days/,
    );
    expect(() => mailSettings({ MAIL_RETENTION_DAYS: '1.5' })).toThrow(/MAIL_RETENTION_DAYS: must be a whole number of days/);
  });
});
