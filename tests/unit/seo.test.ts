import { describe, expect, it } from 'vitest';
import { jsonLd, pageMetadata } from '@/lib/seo';
import { FIXTURE_SITE, withFixtureContent } from '../support/fixture-content';

withFixtureContent();

const alternates = (path: string, extra: Partial<Parameters<typeof pageMetadata>[0]> = {}) =>
  pageMetadata({ title: 'T', description: 'D', path, ...extra }).alternates;

describe('page metadata', () => {
  it('gives a page its canonical URL and its markdown twin', () => {
    const links = alternates('/blog/alpha-post', { article: { slug: 'alpha-post', published: '2025-01-10', tags: [] } });
    expect(links?.canonical).toBe(`${FIXTURE_SITE}/blog/alpha-post`);
    expect(links?.types?.['text/markdown']).toEqual([{ url: `${FIXTURE_SITE}/blog/alpha-post.md`, title: 'Markdown source' }]);
    expect(alternates('/')?.types?.['text/markdown']).toEqual([{ url: `${FIXTURE_SITE}/index.md`, title: 'Markdown' }]);
  });

  it('advertises no markdown for a page without a twin', () => {
    expect(alternates('/search')?.types).not.toHaveProperty('text/markdown');
  });

  it("lists the site's feeds, and on a tag page the tag's RSS after the site's", () => {
    const types = alternates('/tags/testing', { tag: 'testing' })?.types;
    expect(types?.['application/rss+xml']).toEqual([
      { url: `${FIXTURE_SITE}/api/rss`, title: 'Fixture & Co (RSS)' },
      { url: `${FIXTURE_SITE}/tags/testing/rss.xml`, title: 'Fixture & Co: posts tagged “testing” (RSS)' },
    ]);
    expect(types?.['application/atom+xml']).toEqual([{ url: `${FIXTURE_SITE}/atom.xml`, title: 'Fixture & Co (Atom)' }]);
  });
});

describe('jsonLd', () => {
  it('escapes what could close the script element', () => {
    expect(jsonLd({ text: '</script><script>' })).not.toContain('</script>');
    expect(JSON.parse(jsonLd({ text: '</script>\u2028' }))).toEqual({ text: '</script>\u2028' });
  });
});
