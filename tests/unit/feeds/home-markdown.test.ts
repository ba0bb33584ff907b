import { describe, expect, it } from 'vitest';
import { homeMarkdown } from '@/lib/feeds/home-markdown';
import { FIXTURE_SITE, PUBLISHED_SLUGS, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

describe('the home page as markdown', () => {
  const text = homeMarkdown();

  it('opens with the home page title and the site summary', () => {
    expect(text).toMatch(/^# .+\n\n> A fixture site for lectern's contract tests\.\n/);
  });

  it('links the latest posts to their markdown, newest first, then every post', () => {
    const latest = text.slice(text.indexOf('## Latest posts'));
    expect([...latest.matchAll(/\]\((\S+)\)/g)].map((match) => match[1])).toEqual(PUBLISHED_SLUGS.map((slug) => `${FIXTURE_SITE}/blog/${slug}.md`));
    expect(text.trimEnd().endsWith(`All posts: ${FIXTURE_SITE}/blog.md`)).toBe(true);
  });
});
