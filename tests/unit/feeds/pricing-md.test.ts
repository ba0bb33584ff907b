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

  it('lists a training session with its start and seats', () => {
    const training = products().find((product) => product.kind === 'training');
    if (training?.kind !== 'training') throw new Error('the fixture content has a training');
    expect(training.sessions.length).toBeGreaterThan(0);
    for (const session of training.sessions) expect(text).toContain(`- Session \`${session.id}\`: starts ${session.start}, ${session.seats} seats`);
  });
});
