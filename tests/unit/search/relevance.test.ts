import { describe, expect, it } from 'vitest';
import { publishedPosts } from '@/lib/content';
import { buildSearchIndex } from '@/lib/search';

/**
 * What a reader of this site types, and the post (and, where the words point
 * at one, the section) they expect to find among the first three results:
 * titles, phrases of the text, tags, typos and unfinished words, over the
 * site's own content/ folder.
 */
const CASES: { q: string; slug: string; section?: string | null; kind: string }[] = [
  { kind: 'title', q: 'ETags and conditional requests', slug: 'etags-and-conditional-requests' },
  { kind: 'title', q: 'RSS done right', slug: 'rss-done-right' },
  { kind: 'title', q: 'sitemaps truth', slug: 'sitemaps-that-tell-the-truth' },
  { kind: 'title', q: 'typography long-form reading', slug: 'typography-for-long-form-reading' },
  { kind: 'title', q: 'rate limiting forms', slug: 'rate-limiting-small-write-forms' },
  { kind: 'title', q: 'structured data json-ld', slug: 'structured-data-with-json-ld' },
  { kind: 'title', q: 'security headers', slug: 'security-headers-for-a-content-site' },
  { kind: 'title', q: 'accessible articles', slug: 'accessible-articles-for-every-reader' },
  { kind: 'phrase', q: 'token bucket', slug: 'rate-limiting-small-write-forms', section: 'Token bucket, in one picture' },
  { kind: 'phrase', q: 'Vary header Accept', slug: 'content-negotiation-for-markdown', section: 'Vary is not optional' },
  { kind: 'phrase', q: 'guid never change', slug: 'rss-done-right', section: 'GUIDs must never change' },
  { kind: 'phrase', q: 'add_header inherited nginx', slug: 'security-headers-for-a-content-site', section: 'The nginx inheritance trap' },
  { kind: 'phrase', q: 'lastmod build time', slug: 'sitemaps-that-tell-the-truth', section: 'lastmod is a promise' },
  { kind: 'phrase', q: 'minor units cents', slug: 'structured-data-with-json-ld', section: 'Prices: minor units in, decimals out' },
  { kind: 'phrase', q: 'prefers-reduced-motion', slug: 'accessible-articles-for-every-reader', section: 'Motion and colour' },
  { kind: 'phrase', q: 'line height paragraphs', slug: 'typography-for-long-form-reading', section: 'Spacing' },
  { kind: 'phrase', q: 'time zone midnight', slug: 'one-date-everywhere', section: 'Pick a time zone and mean it' },
  { kind: 'phrase', q: 'llms-full.txt convention', slug: 'llms-txt-in-practice', section: 'llms-full.txt is a convention, not the spec' },
  { kind: 'phrase', q: 'Content-Signal preference', slug: 'robots-txt-and-content-signals' },
  { kind: 'phrase', q: '429 Too Many Requests', slug: 'rate-limiting-small-write-forms', section: 'Refuse clearly' },
  { kind: 'phrase', q: 'strong ETag gzip', slug: 'etags-and-conditional-requests', section: 'How it breaks' },
  { kind: 'phrase', q: 'CourseInstance session', slug: 'structured-data-with-json-ld', section: 'Courses and sessions' },
  { kind: 'tag', q: 'typography', slug: 'typography-for-long-form-reading' },
  { kind: 'tag', q: 'rss', slug: 'rss-done-right' },
  { kind: 'tag', q: 'security', slug: 'security-headers-for-a-content-site' },
  { kind: 'tag', q: 'accessibility', slug: 'accessible-articles-for-every-reader' },
  { kind: 'typo', q: 'sitemap lastmdo', slug: 'sitemaps-that-tell-the-truth', section: 'lastmod is a promise' },
  { kind: 'typo', q: 'conditonal requests', slug: 'etags-and-conditional-requests' },
  { kind: 'typo', q: 'typograhpy', slug: 'typography-for-long-form-reading' },
  { kind: 'typo', q: 'negotation markdown', slug: 'content-negotiation-for-markdown' },
  { kind: 'prefix', q: 'robots cont', slug: 'robots-txt-and-content-signals' },
  { kind: 'prefix', q: 'json-ld breadcr', slug: 'structured-data-with-json-ld', section: 'The properties that matter, by page type' },
  { kind: 'prefix', q: 'screen read', slug: 'accessible-articles-for-every-reader' },
  { kind: 'prefix', q: 'feed pol', slug: 'rss-done-right', section: 'Be cheap to poll' },
  { kind: 'prefix', q: 'nosni', slug: 'security-headers-for-a-content-site', section: 'nosniff matters more with markdown' },
];

describe('relevance over the site\u2019s own posts', () => {
  it('finds the expected post (and section) in the first three results for at least 90 % of the queries', () => {
    const posts = publishedPosts();
    expect(posts.length).toBeGreaterThanOrEqual(12);
    for (const { slug } of CASES)
      expect(
        posts.some((post) => post.slug === slug),
        slug,
      ).toBe(true);
    const index = buildSearchIndex(posts);
    const missed: string[] = [];
    for (const { q, slug, section, kind } of CASES) {
      const top = index.search(q, 3).hits;
      const hit = top.find((entry) => entry.post.slug === slug);
      const sectionOk = section === undefined || (hit?.section?.heading ?? null) === section;
      if (!hit || !sectionOk)
        missed.push(
          `${kind} "${q}": expected ${slug}${section === undefined ? '' : ` § ${section}`}, got ${top.map((entry) => `${entry.post.slug}${entry.post.slug === slug ? ` § ${entry.section?.heading ?? '(none)'}` : ''}`).join(', ') || 'nothing'}`,
        );
    }
    const share = (CASES.length - missed.length) / CASES.length;
    console.log(
      `search relevance: ${CASES.length - missed.length} of ${CASES.length} queries (${(share * 100).toFixed(0)} %) find the expected post${missed.length ? `; missed:\n  ${missed.join('\n  ')}` : ''}`,
    );
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });
});
