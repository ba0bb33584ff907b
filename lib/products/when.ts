import { site } from '../content';
import type { Meeting, TrainingSession } from '.';

/**
 * Moments in the site's time zone (site.yaml `timezone`) as a person reads them, for the pricing
 * page, the booking page and the booking mails alike: "Wednesday 10 February 2027, 09:00–13:00 CET".
 */

function parts(millis: number, timeZone: string): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone,
  });
  return Object.fromEntries(format.formatToParts(millis).map((part) => [part.type, part.value]));
}

/** The zone's short name at that moment: "CET", "CEST", "EST", "UTC"; an offset ("GMT+9") where no English name is common. */
export function zoneName(millis: number, timeZone: string = site().timezone): string {
  const short = (locale: string) =>
    new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' }).formatToParts(millis).find((part) => part.type === 'timeZoneName')?.value ?? timeZone;
  const british = short('en-GB');
  return /^GMT[+-]/.test(british) ? short('en-US') : british;
}

const day = (p: Record<string, string>) => `${p.weekday} ${p.day} ${p.month} ${p.year}`;
const time = (p: Record<string, string>) => `${p.hour}:${p.minute}`;

/** "Wednesday 10 February 2027, 09:00 CET" */
export function formatMoment(millis: number, timeZone: string = site().timezone): string {
  const p = parts(millis, timeZone);
  return `${day(p)}, ${time(p)} ${zoneName(millis, timeZone)}`;
}

/** "Wednesday 10 February 2027, 09:00–13:00 CET"; a meeting past midnight names both days. */
export function formatMeeting(meeting: Meeting, timeZone: string = site().timezone): string {
  const start = Date.parse(meeting.start);
  const end = Date.parse(meeting.end);
  const from = parts(start, timeZone);
  const to = parts(end, timeZone);
  const startZone = zoneName(start, timeZone);
  const endZone = zoneName(end, timeZone);
  if (day(from) === day(to)) return `${day(from)}, ${time(from)}–${time(to)} ${endZone}`;
  return `${day(from)}, ${time(from)} ${startZone} – ${day(to)}, ${time(to)} ${endZone}`;
}

/** Every meeting of a session, one a line. */
export function sessionMeetings(session: TrainingSession, timeZone: string = site().timezone): string[] {
  return session.meetings.map((meeting) => formatMeeting(meeting, timeZone));
}

/** A session by its days, as a buyer names it: "Sunday 1 March 2099", or "Sunday 1 March 2099 and Monday 2 March 2099". */
export function sessionDays(session: TrainingSession, timeZone: string = site().timezone): string {
  const days = session.meetings.map((meeting) => day(parts(Date.parse(meeting.start), timeZone)));
  return [...new Set(days)].join(' and ');
}
