import { describe, expect, it } from 'vitest';
import { statusReport, textBar } from '@/lib/newsletter/status';

describe('statusReport', () => {
  it('lists each send with its counts, a bar for one in progress, and the suspended addresses only', () => {
    const lines = statusReport(
      [
        {
          slug: 'old-post',
          state: 'sent',
          startedAt: Date.UTC(2026, 0, 2, 9, 30),
          finishedAt: Date.UTC(2026, 0, 2, 9, 41),
          recipients: 3,
          sent: 2,
          waiting: 0,
          failed: 1,
          skipped: 0,
        },
        { slug: 'new-post', state: 'sending', startedAt: Date.UTC(2026, 0, 3, 8, 0), recipients: 4, sent: 1, waiting: 2, failed: 0, skipped: 1 },
      ],
      [
        { email: 'gone@example.com', count: 2, lastError: '550 No such user', at: 5, suspended: true },
        { email: 'once@example.com', count: 1, lastError: '550 No such user', at: 6, suspended: false },
        { email: 'full@example.com', count: 2, lastError: '3 soft bounces: 4.2.2 mailbox full', at: 7, suspended: true },
      ],
      { 'old-post': { hard: 1, soft: 2, complaints: 1 } },
    );
    expect(lines).toEqual([
      'old-post  started 2026-01-02 09:30 UTC  finished 2026-01-02 09:41 UTC  recipients 3  sent 2  waiting 0  failed 1  skipped 0  bounced 3 (hard 1, soft 2)  complaints 1',
      `new-post  started 2026-01-03 08:00 UTC  sending  recipients 4  sent 1  waiting 2  failed 0  skipped 1  bounced 0 (hard 0, soft 0)  complaints 0  ${textBar(2, 4)}`,
      'Suspended (a hard bounce, soft bounces over the limit, or refused permanently twice):',
      '  gone@example.com  550 No such user',
      '  full@example.com  3 soft bounces: 4.2.2 mailbox full',
    ]);
    expect(textBar(2, 4, 10)).toBe('[#####-----] 50%');
  });

  it('says so when nothing was sent and nobody is suspended', () => {
    expect(statusReport([], [])).toEqual([
      'No send yet: a post published after the first run is mailed to the confirmed subscribers.',
      'No suspended address.',
    ]);
  });
});
