import type { Post } from './load';
import { zoneOffset } from './schema';

/** When a post last changed: `updated`, else `date`. */
export function lastChanged(post: Pick<Post, 'dateMillis' | 'updatedMillis'>): number {
  return post.updatedMillis ?? post.dateMillis;
}

/** The latest change among posts, or undefined for none. */
export function newestChange(posts: readonly Pick<Post, 'dateMillis' | 'updatedMillis'>[]): number | undefined {
  let newest: number | undefined;
  for (const post of posts) newest = Math.max(newest ?? 0, lastChanged(post));
  return newest;
}

/** W3C date-time with seconds, in UTC: 2025-01-10T00:00:00+00:00. */
export function w3cDateTime(millis: number): string {
  return new Date(millis).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** W3C date-time with seconds at an instant, with the offset of a time zone: 2025-01-10T00:00:00-05:00. */
export function zonedDateTime(millis: number, timeZone: string): string {
  const offset = zoneOffset(millis, timeZone);
  const sign = offset < 0 ? '-' : '+';
  const minutes = Math.abs(offset) / 60_000;
  const hhmm = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return `${new Date(millis + offset).toISOString().slice(0, 19)}${sign}${hhmm}`;
}

/** A day as people read it (January 10, 2025), in a time zone. */
export function longDate(millis: number, timeZone: string, language = 'en'): string {
  return new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone }).format(millis);
}
