import type { Subscriber } from '../services/store/types';

/** One CSV field: quoted when needed, and never read as a formula by a spreadsheet. */
function field(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function subscribersCsv(subscribers: readonly Subscriber[]): string {
  const rows = [['email', 'name', 'status', 'subscribed_at', 'confirmed_at']];
  for (const subscriber of subscribers) {
    rows.push([
      subscriber.email,
      subscriber.name ?? '',
      subscriber.status,
      new Date(subscriber.createdAt).toISOString(),
      subscriber.confirmedAt ? new Date(subscriber.confirmedAt).toISOString() : '',
    ]);
  }
  return `${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`;
}
