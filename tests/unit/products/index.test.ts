import { describe, expect, it } from 'vitest';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();

const { cancellationDeadline, CANCELLATION_NOTICE_DAYS, productBySlug } = await import('@/lib/products');

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
    const deadline = new Date(cancellationDeadline(start));
    expect((Date.parse(start) - deadline.getTime()) / 86_400_000).toBe(CANCELLATION_NOTICE_DAYS);
    expect(deadline.toISOString().slice(11)).toBe('09:00:00.000Z');
    expect(CANCELLATION_NOTICE_DAYS).toBeGreaterThan(0);
  });
});
