import { describe, expect, it } from 'vitest';
import { tagBySlug } from '@/lib/content';
import { appsMarkdown, blogMarkdown, escapeLinkText, tagMarkdown } from '@/lib/feeds/page-markdown';
import { FIXTURE_SITE, PUBLISHED_SLUGS, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

const links = (text: string) => [...text.matchAll(/\]\((\S+)\)/g)].map((match) => match[1]);

describe('pages as markdown', () => {
  it('/blog.md: every tag linked to its markdown with its count, then every post linked to its markdown', () => {
    const text = blogMarkdown();
    expect(text).toContain(`- [testing](${FIXTURE_SITE}/tags/testing.md) (2)`);
    const posts = text.slice(text.indexOf('## Posts'));
    expect(links(posts)).toEqual(PUBLISHED_SLUGS.map((slug) => `${FIXTURE_SITE}/blog/${slug}.md`));
    expect(text).not.toContain('unpublished-only');
  });

  it("/tags/{tag}.md: the tag's posts, newest first, and a link to every post", () => {
    const tag = tagBySlug('testing');
    if (!tag) throw new Error('the fixture content has the tag "testing"');
    const text = tagMarkdown(tag);
    expect(text.startsWith('# Posts tagged “testing”\n')).toBe(true);
    expect(links(text)).toEqual([`${FIXTURE_SITE}/blog/beta-post.md`, `${FIXTURE_SITE}/blog/alpha-post.md`]);
    expect(text).toContain(`Every post: ${FIXTURE_SITE}/blog.md`);
  });

  it('keeps a title with brackets inside its link text', () => {
    expect(escapeLinkText('a [b] c\\')).toBe('a \\[b\\] c\\\\');
  });

  it('/apps.md: each app with its download URL on this site', () => {
    expect(appsMarkdown()).toContain(`- Download: ${FIXTURE_SITE}/api/apps/fixture-app/download`);
  });
});
