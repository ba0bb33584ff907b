import { describeError } from '../log';
import { productBySlug, sessionStart, type TrainingProduct } from '../products';
import { bookingReminderMail } from '../services/mail/templates';
import type { Store } from '../services/store/types';
import { bookingDetails } from './details';

/** How many due reminders one pass queues at most (the next pass takes the rest). */
const REMINDERS_PER_PASS = 100;

function startsIn(ms: number): string {
  const hours = Math.max(1, Math.round(ms / 3_600_000));
  return hours >= 48 ? `in ${Math.round(hours / 24)} days` : `in ${hours} hour${hours === 1 ? '' : 's'}`;
}

/**
 * Queues the reminder of every booking whose time has come (BOOKING_REMINDER_HOURS before its
 * session's first meeting): each once, however many instances look and however often they
 * restart, since the store marks it reminded in the same atomic step that queues its mail (the
 * mail worker then sends it under its fenced claim). A booking whose session has started, or
 * is no longer on the site, is marked without a mail. `now` is the site's clock (lib/clock.ts), which
 * decides what is due; the mail is queued at the wall clock's time, as the mail worker reads it. `queued` is told when mail was queued
 * (the worker is kicked). Run by lectern's scheduler, and by the cron call on a platform.
 */
export async function queueDueReminders(store: Pick<Store, 'bookings'>, now: number, queued: () => void): Promise<number> {
  const due = await store.bookings.dueReminders(now, REMINDERS_PER_PASS);
  let count = 0;
  for (const booking of due) {
    if (booking.remindAt === undefined) continue;
    const product = productBySlug(booking.product);
    const training = product?.kind === 'training' ? (product as TrainingProduct) : undefined;
    const session = training?.sessions.find((entry) => entry.id === booking.session);
    try {
      if (!training || !session || sessionStart(session) <= now) {
        await store.bookings.recordReminder({ id: booking.id, remindAt: booking.remindAt, now: Date.now(), mails: [] });
        continue;
      }
      const details = bookingDetails(booking, training, session, { sequence: booking.sequence ?? 0, now });
      const mail = bookingReminderMail({ name: booking.name, address: booking.email }, { ...details, startsIn: startsIn(sessionStart(session) - now) });
      // Queued (and marked) at the wall clock's time, like every mail, whatever the site's clock says.
      if (await store.bookings.recordReminder({ id: booking.id, remindAt: booking.remindAt, now: Date.now(), mails: [mail] })) count += 1;
    } catch (error) {
      console.warn(`bookings: the reminder of ${booking.id} waits for the next pass (${describeError(error)})`);
    }
  }
  if (count > 0) queued();
  return count;
}
