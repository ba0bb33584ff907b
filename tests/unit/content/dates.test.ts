import { describe, expect, it } from 'vitest';
import { lastChanged, newestChange, w3cDateTime } from '@/lib/content/dates';

const post = (date: string, updated?: string) => ({ dateMillis: Date.parse(date), updatedMillis: updated === undefined ? undefined : Date.parse(updated) });

describe('dates', () => {
  it('dates a post by its update when it has one, else by its date', () => {
    expect(lastChanged(post('2025-01-10', '2025-02-01'))).toBe(Date.UTC(2025, 1, 1));
    expect(lastChanged(post('2025-01-10'))).toBe(Date.UTC(2025, 0, 10));
  });

  it('finds the newest change among posts, whichever order they come in', () => {
    expect(newestChange([post('2025-03-01'), post('2025-01-01', '2025-04-01'), post('2025-02-01')])).toBe(Date.UTC(2025, 3, 1));
    expect(newestChange([])).toBeUndefined();
  });

  it('writes W3C date-times with seconds in UTC', () => {
    expect(w3cDateTime(Date.parse('2025-04-01T09:30:15.250+02:00'))).toBe('2025-04-01T07:30:15+00:00');
  });
});
