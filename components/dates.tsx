import { site } from '@/lib/content';
import { longDate, zonedDateTime } from '@/lib/content/dates';

/** A post's date: its day in the site's time zone, and the instant (with that zone's offset) for machines. */
export function PostDate({ millis }: { millis: number }) {
  const { timezone, language } = site();
  return <time dateTime={zonedDateTime(millis, timezone)}>{longDate(millis, timezone, language)}</time>;
}
