import { newestFirst, type Post } from '../content/load';

/** `2999-01-01 09:00` in a time zone (an IANA name). */
function wallTime(millis: number, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(millis))
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/**
 * What `npm run check` says of the posts dated ahead of `now`, soonest first: each post's time
 * in the site's time zone (site.yaml's `timezone`, UTC unless it says otherwise) and in UTC.
 */
export function scheduledPostLines(posts: readonly Pick<Post, 'slug' | 'title' | 'draft' | 'dateMillis'>[], now: number, timeZone: string): string[] {
  const scheduled = posts
    .filter((post) => !post.draft && post.dateMillis > now)
    .toSorted(newestFirst)
    .reverse();
  if (scheduled.length === 0) return [];
  const zone = timeZone !== 'UTC' ? timeZone : undefined;
  const heading = zone ? `Scheduled posts (${zone}, then UTC):` : 'Scheduled posts (times in UTC):';
  return [
    heading,
    ...scheduled.map((post) => {
      const utc = `${wallTime(post.dateMillis, 'UTC')} UTC`;
      const when = zone ? `${wallTime(post.dateMillis, zone)} ${zone} (${utc})` : utc;
      return `  ${when}  ${post.slug}  "${post.title}"`;
    }),
  ];
}
