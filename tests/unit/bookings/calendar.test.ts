import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

const { bookingCalendar } = await import('@/lib/bookings/calendar');

const session = {
  id: '2099-spring',
  seats: 12,
  meetings: [
    { start: '2099-03-01T09:00:00+01:00', end: '2099-03-01T13:00:00+01:00' },
    { start: '2099-03-02T09:00:00+01:00', end: '2099-03-02T13:00:00+01:00' },
  ],
};

/** Each event of a calendar file as a real parser reads it back: its URL (when it has one) and its location. */
function events(joining: string | undefined) {
  const text = bookingCalendar({ booking: 'bk_1', training: { title: 'A training', joining }, session, sequence: 0, now: Date.parse('2099-01-01T00:00:00Z') });
  return new ICAL.Component(ICAL.parse(text)).getAllSubcomponents('vevent').map((event) => ({
    url: event.getFirstPropertyValue('url'),
    location: event.getFirstPropertyValue('location'),
  }));
}

describe("a booking's calendar file", () => {
  it('links each meeting to the joining link, without the words that follow it, and keeps the whole text as the location', () => {
    const joining = 'https://meet.example.com/agent-ready-publishing (the link opens 15 minutes before each meeting)';
    expect(events(joining)).toEqual([
      { url: 'https://meet.example.com/agent-ready-publishing', location: joining },
      { url: 'https://meet.example.com/agent-ready-publishing', location: joining },
    ]);
    expect(events('https://meet.example.com/room.')[0]!.url).toBe('https://meet.example.com/room');
    expect(events('https://meet.example.com/room?pwd=abc')[0]!.url).toBe('https://meet.example.com/room?pwd=abc');
  });

  it('gives no URL when the joining details start with no link', () => {
    expect(events('Room 4, 2nd floor; see https://example.com/map')).toEqual([
      { url: null, location: 'Room 4, 2nd floor; see https://example.com/map' },
      { url: null, location: 'Room 4, 2nd floor; see https://example.com/map' },
    ]);
    expect(events(undefined)[0]).toEqual({ url: null, location: null });
  });
});
