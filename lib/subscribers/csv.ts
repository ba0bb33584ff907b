import type { Subscriber, SubscriberStatus } from '../services/store/types';

const STATUSES: readonly SubscriberStatus[] = ['pending', 'confirmed', 'unsubscribed'];

export const EXPORT_USAGE = 'usage: npm run subscribers:csv [-- --all | --status=pending,confirmed,unsubscribed]   (default: confirmed subscribers only)';

/**
 * Which subscribers an export holds, from its arguments: confirmed ones by
 * default (the people who asked for mail), `--all`, or `--status=` a
 * comma-separated list. `--confirmed` is the default said out loud.
 */
export function exportStatuses(args: readonly string[]): { ok: true; statuses: SubscriberStatus[] } | { ok: false; error: string } {
  let statuses: SubscriberStatus[] = ['confirmed'];
  for (const arg of args) {
    if (arg === '--all') statuses = [...STATUSES];
    else if (arg === '--confirmed') statuses = ['confirmed'];
    else if (arg.startsWith('--status=')) {
      const wanted = arg.slice('--status='.length).split(',').filter(Boolean);
      const unknown = wanted.filter((status) => !STATUSES.includes(status as SubscriberStatus));
      if (wanted.length === 0 || unknown.length > 0) return { ok: false, error: `unknown status "${unknown.join(',') || arg}": use ${STATUSES.join(', ')}` };
      statuses = wanted as SubscriberStatus[];
    } else return { ok: false, error: `unknown argument "${arg}"` };
  }
  return { ok: true, statuses };
}

/** One CSV field: quoted when needed, and never read as a formula by a spreadsheet. */
function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Why an address gets no mail, or what last came back from it: by address. */
export type AddressNotes = { suspended: ReadonlyMap<string, string>; lastBounce: ReadonlyMap<string, string> };

/**
 * The CSV: a confirmed address suspended from the newsletter shows `suspended`, with the reason;
 * any other row's reason is what last came back from it (a bounce, or the complaint that unsubscribed it).
 */
export function subscribersCsv(subscribers: readonly Subscriber[], notes: AddressNotes = { suspended: new Map(), lastBounce: new Map() }): string {
  const rows = [['email', 'name', 'status', 'reason', 'subscribed_at', 'confirmed_at']];
  for (const subscriber of subscribers) {
    const suspended = subscriber.status === 'confirmed' ? notes.suspended.get(subscriber.email) : undefined;
    rows.push([
      subscriber.email,
      subscriber.name ?? '',
      suspended === undefined ? subscriber.status : 'suspended',
      suspended ?? notes.lastBounce.get(subscriber.email) ?? '',
      new Date(subscriber.createdAt).toISOString(),
      subscriber.confirmedAt ? new Date(subscriber.confirmedAt).toISOString() : '',
    ]);
  }
  return `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}
