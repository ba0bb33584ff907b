import { describe, expect, it } from 'vitest';
import { lastChanged, longDate, newestChange, w3cDateTime, zonedDateTime } from '@/lib/content/dates';
import { dateToMillis } from '@/lib/content/schema';

const post = (date: string, updated?: string) => ({ dateMillis: Date.parse(date), updatedMillis: updated === undefined ? undefined : Date.parse(updated) });

describe('dates', () => {
  it('dates a post by its update when it has one, else by its date', () => {
    expect(lastChanged(post('2025-01-10', '2025-02-01'))).toBe(Date.UTC(2025, 1, 1));
    expect(lastChanged(post('2025-01-10'))).toBe(Date.UTC(2025, 0, 10));
  });

  it('finds the newest change among posts, whichever order they come in', () => {
    expect(newestChange([post('2025-03-01'), post('2025-01-01', '2025-04-01'), post('2025-02-01')])).toBe(Date.UTC(2025, 3, 1));
    expect(newestChange([])).toBeUndefined();
  });

  it('writes W3C date-times with seconds in UTC', () => {
    expect(w3cDateTime(Date.parse('2025-04-01T09:30:15.250+02:00'))).toBe('2025-04-01T07:30:15+00:00');
  });
});

describe('dates in the site’s time zone', () => {
  it('puts a date-only value at midnight of that day in the zone, and leaves a date-time as it says', () => {
    expect(dateToMillis('2025-01-10', 'America/New_York')).toBe(Date.parse('2025-01-10T00:00:00-05:00'));
    expect(dateToMillis('2025-07-10', 'America/New_York')).toBe(Date.parse('2025-07-10T00:00:00-04:00'));
    expect(dateToMillis('2025-01-10', 'Asia/Kolkata')).toBe(Date.parse('2025-01-10T00:00:00+05:30'));
    expect(dateToMillis('2025-01-10')).toBe(Date.UTC(2025, 0, 10));
    expect(dateToMillis('2025-01-10T09:30:00+02:00', 'America/New_York')).toBe(Date.parse('2025-01-10T09:30:00+02:00'));
    // A day whose midnight a daylight-saving change skipped (São Paulo, 2018-11-04) starts at 01:00 -02:00.
    expect(dateToMillis('2018-11-04', 'America/Sao_Paulo')).toBe(Date.parse('2018-11-04T01:00:00-02:00'));
  });

  it('writes an instant with the zone’s offset, and the day people read there', () => {
    const midnight = Date.parse('2025-01-10T00:00:00-05:00');
    expect(zonedDateTime(midnight, 'America/New_York')).toBe('2025-01-10T00:00:00-05:00');
    expect(zonedDateTime(midnight, 'UTC')).toBe('2025-01-10T05:00:00+00:00');
    expect(zonedDateTime(Date.parse('2025-01-10T00:00:00+05:30'), 'Asia/Kolkata')).toBe('2025-01-10T00:00:00+05:30');
    expect(longDate(midnight, 'America/New_York')).toBe('January 10, 2025');
    expect(longDate(Date.parse('2025-01-10T00:00:00+01:00'), 'Europe/Berlin')).toBe('January 10, 2025');
    expect(longDate(Date.parse('2025-01-10T00:00:00+01:00'), 'UTC')).toBe('January 9, 2025');
  });
});
