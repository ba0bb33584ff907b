import { describe, expect, it } from 'vitest';
import { frontmatterRendersAsHeading, splitFrontmatter } from '@/lib/content/frontmatter';
import { DESCRIPTION_PLACEHOLDER, newPostSource, slugFromTitle } from '@/lib/content/new-post';
import { postFrontmatterSchema } from '@/lib/content/schema';

describe('slugFromTitle', () => {
  it.each([
    ['ETags and conditional requests', 'etags-and-conditional-requests'],
    ['Héllo, Wörld: ETags & 304s!', 'hello-world-etags-304s'],
    ['  --Why  llms.txt?--  ', 'why-llms-txt'],
    ['snake_case and CamelCase', 'snake-case-and-camelcase'],
  ])('turns %j into %j, a slug the schema accepts', (title, slug) => {
    expect(slugFromTitle(title)).toBe(slug);
  });

  it('gives up on a title with no letter a-z or digit', () => {
    expect(slugFromTitle('日本語')).toBeUndefined();
    expect(slugFromTitle('!!!')).toBeUndefined();
  });
});

describe('newPostSource', () => {
  it('writes a draft whose frontmatter passes validation, with the title as given (quotes and colons kept)', () => {
    const { data, body } = splitFrontmatter(newPostSource('  Caching: "the hard parts"  ', '2026-11-24'));
    expect(postFrontmatterSchema.parse(data)).toMatchObject({
      title: 'Caching: "the hard parts"',
      description: DESCRIPTION_PLACEHOLDER,
      date: '2026-11-24',
      tags: [],
      draft: true,
    });
    expect(body).toMatch(/^## First section\n/);
    expect(body).toContain('Remove `draft: true` to publish.');
  });

  it('writes frontmatter that its markdown twin shows as text between two rules, not as a heading', () => {
    const source = newPostSource('ETags', '2026-11-24');
    expect(frontmatterRendersAsHeading(source)).toBe(false);
    expect(frontmatterRendersAsHeading(source.replace('\n\n---\n', '\n---\n'))).toBe(true);
  });
});
