import { describe, expect, it } from 'vitest';
import { subscribersCsv } from '@/lib/subscribers/csv';
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
      'email,name,status,reason,subscribed_at,confirmed_at',
      'a@example.com,"Smith, ""Jo""",confirmed,,1970-01-01T00:00:00.000Z,1970-01-01T00:00:01.000Z',
      `b@example.com,"'=HYPERLINK(""x"")",pending,,1970-01-01T00:00:00.000Z,`,
      '',
    ]);
  });
});
