import { describe, expect, it } from 'vitest';
import { formatMeeting, formatMoment, zoneName } from '@/lib/products/when';

describe("times in the site's zone, in words", () => {
  it('says a meeting as "Wednesday 10 February 2027, 09:00–13:00 CET", with the zone of its date', () => {
    const winter = { start: '2027-02-10T09:00:00+01:00', end: '2027-02-10T13:00:00+01:00' };
    const summer = { start: '2027-05-12T09:00:00+02:00', end: '2027-05-12T13:00:00+02:00' };
    expect(formatMeeting(winter, 'Europe/Stockholm')).toBe('Wednesday 10 February 2027, 09:00–13:00 CET');
    expect(formatMeeting(summer, 'Europe/Stockholm')).toBe('Wednesday 12 May 2027, 09:00–13:00 CEST');
    expect(formatMeeting(winter, 'America/New_York')).toBe('Wednesday 10 February 2027, 03:00–07:00 EST');
    expect(formatMeeting(winter, 'UTC')).toBe('Wednesday 10 February 2027, 08:00–12:00 UTC');
  });

  it('names both days of a meeting past midnight, and an offset where a zone has no common English name', () => {
    expect(formatMeeting({ start: '2027-02-10T22:00:00+01:00', end: '2027-02-11T01:00:00+01:00' }, 'Europe/Stockholm')).toBe(
      'Wednesday 10 February 2027, 22:00 CET – Thursday 11 February 2027, 01:00 CET',
    );
    expect(zoneName(Date.parse('2027-02-10T08:00:00Z'), 'Asia/Tokyo')).toBe('GMT+9');
    expect(formatMoment(Date.parse('2027-02-03T08:00:00Z'), 'Europe/London')).toBe('Wednesday 3 February 2027, 08:00 GMT');
  });
});
