import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { absoluteUrl } from '../runtime/site';
import { site } from '../content';
import type { TrainingProduct, TrainingSession } from '../products';
import { sessionDays } from '../products/when';

/** What a booking's calendar file says: the booking, its session's meetings, and how to join. */
export type BookingCalendar = {
  booking: string;
  training: Pick<TrainingProduct, 'title' | 'joining'>;
  session: TrainingSession;
  /** Raised on every change of the booking (0 when booked, 1 after its first move, ...). */
  sequence: number;
  /** When the file is made (DTSTAMP). */
  now: number;
  /** A cancelled booking's file marks every meeting cancelled. */
  cancelled?: boolean;
  /** Where the booking is managed (its cancel and move page). */
  manageUrl?: string;
};

/** The UID of a booking's nth meeting (from 1): the same for every version of the booking, so a calendar updates the entry it has. */
export function meetingUid(booking: string, index: number): string {
  return `${booking}-${index}@${new URL(absoluteUrl('/')).hostname}`;
}

/**
 * The link in a training's joining details, for the events' URL (a URI, RFC 5545): the details
 * themselves when they are one, else the http(s) link they start with, without the words after it
 * or the punctuation closing the sentence; none when they start with no link.
 */
function joiningLink(joining: string | undefined): string | undefined {
  const link = joining
    ?.trim()
    .match(/^https?:\/\/\S+/)?.[0]
    .replace(/[.,;:!?)\]]+$/, '');
  return link && URL.canParse(link) ? new URL(link).href : undefined;
}

/**
 * A booking as an iCalendar file (RFC 5545): one VEVENT per meeting, in UTC, with a UID stable
 * per booking and meeting and the booking's SEQUENCE, so a calendar that has the first file
 * replaces its entries with a later one (a move) or removes them (a cancellation).
 */
export function bookingCalendar(input: BookingCalendar): string {
  const calendar = ical({
    name: input.training.title,
    prodId: { company: site().name, product: 'lectern', language: 'EN' },
    method: input.cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.PUBLISH,
  });
  const joining = input.training.joining;
  const link = joiningLink(joining);
  const total = input.session.meetings.length;
  input.session.meetings.forEach((meeting, index) => {
    const description = [
      total > 1
        ? `Part ${index + 1} of ${total} of ${input.training.title}, ${sessionDays(input.session)}.`
        : `${input.training.title}, ${sessionDays(input.session)}.`,
      ...(joining ? [`How to join: ${joining}`] : []),
      ...(input.manageUrl ? [`Cancel or move your booking: ${input.manageUrl}`] : []),
    ].join('\n');
    calendar.createEvent({
      id: meetingUid(input.booking, index + 1),
      sequence: input.sequence,
      stamp: new Date(input.now),
      start: new Date(meeting.start),
      end: new Date(meeting.end),
      summary: total > 1 ? `${input.training.title} (${index + 1}/${total})` : input.training.title,
      description,
      ...(joining ? { location: joining } : {}),
      ...(link ? { url: link } : {}),
      status: input.cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    });
  });
  return calendar.toString();
}
