import { describe, expect, it } from 'vitest';
import { scheduledPostLines } from '@/lib/publishing/schedule-list';

const posts = [
  { slug: 'live', title: 'Live', draft: false, dateMillis: Date.UTC(2026, 0, 1) },
  { slug: 'later', title: 'Later', draft: false, dateMillis: Date.UTC(2026, 5, 1, 7, 30) },
  { slug: 'sooner', title: 'Sooner', draft: false, dateMillis: Date.UTC(2026, 2, 2, 8) },
  { slug: 'hidden', title: 'Draft', draft: true, dateMillis: Date.UTC(2026, 4, 1) },
];
const NOW = Date.UTC(2026, 1, 1);

describe('scheduledPostLines', () => {
  it("gives each post dated ahead its time in the site's time zone and in UTC, soonest first; drafts are not scheduled", () => {
    expect(scheduledPostLines(posts, NOW, 'Europe/Paris')).toEqual([
      'Scheduled posts (Europe/Paris, then UTC):',
      '  2026-03-02 09:00 Europe/Paris (2026-03-02 08:00 UTC)  sooner  "Sooner"',
      '  2026-06-01 09:30 Europe/Paris (2026-06-01 07:30 UTC)  later  "Later"',
    ]);
  });

  it('gives UTC once for a site in UTC, and says nothing when nothing is scheduled', () => {
    expect(scheduledPostLines(posts, NOW, 'UTC')).toEqual([
      'Scheduled posts (times in UTC):',
      '  2026-03-02 08:00 UTC  sooner  "Sooner"',
      '  2026-06-01 07:30 UTC  later  "Later"',
    ]);
    expect(scheduledPostLines(posts, Date.UTC(2027, 0, 1), 'Europe/Paris')).toEqual([]);
  });
});
