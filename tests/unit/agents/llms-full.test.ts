import { describe, expect, it } from 'vitest';
import { llmsFullTxt } from '@/lib/agents/llms-full';
import { FIXTURE_SITE, PUBLISHED_SLUGS, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

describe('llms-full.txt', () => {
  const text = llmsFullTxt();

  it('puts the reuse rule on top', () => {
    expect(text.split('\n---\n')[0]).toContain('Republishing whole articles is not permitted.');
  });

  it('holds every published post, newest first, each headed by its title, canonical URL and dates', () => {
    const urls = [...text.matchAll(/^URL: (.+)$/gm)].map((match) => match[1]);
    expect(urls).toEqual(PUBLISHED_SLUGS.map((slug) => `${FIXTURE_SITE}/blog/${slug}`));
    expect(text).toContain(`# Alpha post\n\nURL: ${FIXTURE_SITE}/blog/alpha-post\nPublished: 2025-01-10\nUpdated: 2025-02-01\nTags: http, testing\n`);
  });

  it('holds no draft and no future post', () => {
    expect(text).not.toMatch(/Secret draft post|Future post/);
  });
});
