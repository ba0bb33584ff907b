import { describe, expect, it } from 'vitest';
import { pricingMarkdown } from '@/lib/feeds/pricing-md';
import { products } from '@/lib/content';
import { FIXTURE_SITE, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

describe('pricing.md', () => {
  const text = pricingMarkdown();

  it('lists every product in the table, in the order of the pricing page, with a decimal price', () => {
    const rows = text.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Product'));
    expect(rows.map((row) => row.split(' | ')[0]?.slice(2))).toEqual(products().map((product) => product.title));
    expect(text).toContain('| Fixture Book | Book | 29.00 | EUR |');
  });

  it('gives each product a section with its slug, and links the pricing page', () => {
    for (const product of products()) expect(text).toContain(`## ${product.title}\n\n- Kind: `);
    expect(text).toContain('- Slug: `fixture-book`');
    expect(text).toContain(`${FIXTURE_SITE}/pricing`);
  });

  it("lists a training session with its seats and each meeting, in the site's zone in words and as ISO date-times", () => {
    expect(text).toContain(
      '- Session `spring`, 10 seats: Sunday 1 March 2099, 03:00–07:00 EST (2099-03-01T09:00:00+01:00 to 2099-03-01T13:00:00+01:00); Monday 2 March 2099, 03:00–07:00 EST (2099-03-02T09:00:00+01:00 to 2099-03-02T13:00:00+01:00)',
    );
  });

  it('never shows how to join, which only people who booked get', () => {
    expect(text).not.toContain('fixture-joining-room');
  });
});
