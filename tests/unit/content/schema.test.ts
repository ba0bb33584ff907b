import { describe, expect, it } from 'vitest';
import { dateToMillis, postFrontmatterSchema, productFrontmatterSchema, siteSchema, slugSchema } from '@/lib/content/schema';

const post = { title: 'A', description: 'B', date: '2025-01-10' };
const problems = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];

describe('post frontmatter', () => {
  it('fills in no tags, not a draft, and mailed to the newsletter', () => {
    expect(postFrontmatterSchema.parse(post)).toEqual({ ...post, tags: [], draft: false, newsletter: true });
  });

  it('keeps a post out of the newsletter with newsletter: false, and takes only a boolean there', () => {
    expect(postFrontmatterSchema.parse({ ...post, newsletter: false })).toMatchObject({ newsletter: false });
    expect(postFrontmatterSchema.safeParse({ ...post, newsletter: 'no' }).success).toBe(false);
  });

  it('refuses an unknown key, so a typo never publishes a draft', () => {
    expect(problems(postFrontmatterSchema.safeParse({ ...post, drfat: true }))).toEqual([expect.stringContaining('drfat')]);
  });

  it('takes a date-time only with an offset, and no update before the date', () => {
    expect(postFrontmatterSchema.safeParse({ ...post, date: '2025-01-10T09:30:00+01:00' }).success).toBe(true);
    expect(problems(postFrontmatterSchema.safeParse({ ...post, date: '2025-01-10T09:30:00' }))).toEqual([
      'date: must be YYYY-MM-DD or an ISO 8601 date-time with offset',
    ]);
    expect(problems(postFrontmatterSchema.safeParse({ ...post, updated: '2025-01-09' }))).toEqual(['updated: must not be before date']);
  });

  it('refuses a description over 300 characters', () => {
    expect(problems(postFrontmatterSchema.safeParse({ ...post, description: 'x'.repeat(301) }))).toEqual(['description: must be at most 300 characters']);
  });
});

describe('slugs and dates', () => {
  it.each(['a', 'etags-and-caching', 'v2'])('takes the slug %j', (slug) => expect(slugSchema.safeParse(slug).success).toBe(true));
  it.each(['A', 'a--b', '-a', 'a-', 'a_b', ''])('refuses the slug %j', (slug) => expect(slugSchema.safeParse(slug).success).toBe(false));

  it('reads a date-only value as midnight UTC', () => {
    expect(dateToMillis('2025-01-10')).toBe(Date.UTC(2025, 0, 10));
    expect(dateToMillis('2025-01-10T01:00:00+02:00')).toBe(Date.UTC(2025, 0, 9, 23));
  });
});

describe('product frontmatter', () => {
  const offer = { kind: 'offer', title: 'O', description: 'D', price: 100, currency: 'EUR', starts: '2025-01-01T00:00:00Z', ends: '2025-02-01T00:00:00Z' };

  it('gives an offer a window that ends after it starts', () => {
    expect(productFrontmatterSchema.safeParse(offer).success).toBe(true);
    expect(problems(productFrontmatterSchema.safeParse({ ...offer, ends: offer.starts }))).toEqual(['ends: must be after starts']);
  });

  it('refuses a currency that is not an ISO 4217 code', () => {
    expect(problems(productFrontmatterSchema.safeParse({ ...offer, currency: 'euro' }))).toEqual(['currency: must be an ISO 4217 code such as EUR']);
  });
});

describe('site settings', () => {
  const base = { name: 'N', summary: 'S', author: { name: 'A' }, citation: 'C' };

  it('takes an IANA time zone, UTC by default, and refuses a name the runtime does not know', () => {
    expect(siteSchema.parse(base).timezone).toBe('UTC');
    expect(siteSchema.parse({ ...base, timezone: 'Europe/Berlin' }).timezone).toBe('Europe/Berlin');
    const wrong = siteSchema.safeParse({ ...base, timezone: 'Mars/Olympus' });
    expect(wrong.success).toBe(false);
    expect(wrong.error?.issues[0]?.message).toContain('IANA time zone');
  });

  it('takes up to four profile links, each a name and an absolute http(s) URL, and none by default', () => {
    expect(siteSchema.parse(base).links).toBeUndefined();
    const links = [{ name: 'Mastodon', url: 'https://social.example/@mara' }];
    expect(siteSchema.parse({ ...base, links }).links).toEqual(links);
    const wrong = siteSchema.safeParse({ ...base, links: [{ name: 'Mail', url: 'mailto:mara@example.com' }] });
    expect(wrong.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual(['links.0.url: must be an absolute http(s) URL']);
    const many = Array.from({ length: 5 }, (_, index) => ({ name: `P${index}`, url: `https://p${index}.example/` }));
    expect(siteSchema.safeParse({ ...base, links: many }).error?.issues[0]?.message).toContain('at most 4');
    expect(siteSchema.safeParse({ ...base, links: [{ name: 'X', url: 'https://x.example/', rel: 'me' }] }).success).toBe(false);
  });
});

describe('a post’s author', () => {
  const post = { title: 'T', description: 'D', date: '2025-01-10' };
  it('is optional, and a name when given', () => {
    expect(postFrontmatterSchema.parse(post).author).toBeUndefined();
    expect(postFrontmatterSchema.parse({ ...post, author: ' Guest Writer ' }).author).toBe('Guest Writer');
    expect(postFrontmatterSchema.safeParse({ ...post, author: '' }).success).toBe(false);
    expect(postFrontmatterSchema.safeParse({ ...post, author: { name: 'x' } }).success).toBe(false);
  });
});
