import { describe, expect, it } from 'vitest';
import { exportStatuses } from '@/lib/subscribers/csv';

describe('exportStatuses', () => {
  it('exports confirmed subscribers unless told otherwise', () => {
    expect(exportStatuses([])).toEqual({ ok: true, statuses: ['confirmed'] });
    expect(exportStatuses(['--confirmed'])).toEqual({ ok: true, statuses: ['confirmed'] });
  });

  it('exports every status with --all, or the ones listed with --status=', () => {
    expect(exportStatuses(['--all'])).toEqual({ ok: true, statuses: ['pending', 'confirmed', 'unsubscribed'] });
    expect(exportStatuses(['--status=pending,unsubscribed'])).toEqual({ ok: true, statuses: ['pending', 'unsubscribed'] });
  });

  it('names an unknown status or argument', () => {
    expect(exportStatuses(['--status=confirmed,gone'])).toEqual({ ok: false, error: 'unknown status "gone": use pending, confirmed, unsubscribed' });
    expect(exportStatuses(['--status='])).toEqual({ ok: false, error: 'unknown status "--status=": use pending, confirmed, unsubscribed' });
    expect(exportStatuses(['--everyone'])).toEqual({ ok: false, error: 'unknown argument "--everyone"' });
  });
});
