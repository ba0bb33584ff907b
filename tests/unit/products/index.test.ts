import { describe, expect, it } from 'vitest';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();

const { cancellationDeadline, CANCELLATION_NOTICE_DAYS, laterSessions, productBySlug } = await import('@/lib/products');

describe('productBySlug', () => {
  it("finds a product of the content folder by its file's name, with its kind", () => {
    expect(productBySlug('fixture-book')).toMatchObject({ slug: 'fixture-book', kind: 'book', title: 'Fixture Book' });
    expect(productBySlug('fixture-training')).toMatchObject({ kind: 'training' });
  });

  it('finds nothing for a slug no product has', () => {
    expect(productBySlug('no-such-product')).toBeUndefined();
    expect(productBySlug('')).toBeUndefined();
  });
});

describe('cancellationDeadline', () => {
  it('is the notice period, in whole days, before the session starts, at the same time of day', () => {
    const start = '2026-12-10T09:00:00Z';
    const deadline = new Date(cancellationDeadline({ id: 's', seats: 1, meetings: [{ start, end: '2026-12-10T13:00:00Z' }] }));
    expect((Date.parse(start) - deadline.getTime()) / 86_400_000).toBe(CANCELLATION_NOTICE_DAYS);
    expect(deadline.toISOString().slice(11)).toBe('09:00:00.000Z');
    expect(CANCELLATION_NOTICE_DAYS).toBeGreaterThan(0);
  });
});

describe('laterSessions', () => {
  it('offers a move to the sessions that start after the booked one and have not started', () => {
    const training = productBySlug('fixture-training');
    if (training?.kind !== 'training') throw new Error('the fixture content has a training');
    const spring = training.sessions.find((session) => session.id === 'spring')!;
    expect(laterSessions(training, spring, Date.parse('2026-01-01T00:00:00Z')).map((session) => session.id)).toEqual(['autumn', 'winter']);
    expect(laterSessions(training, spring, Date.parse('2099-10-01T00:00:00Z')).map((session) => session.id)).toEqual(['winter']);
  });
});
