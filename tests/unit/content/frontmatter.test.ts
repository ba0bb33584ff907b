import { describe, expect, it } from 'vitest';
import { frontmatterRendersAsHeading, splitFrontmatter } from '@/lib/content/frontmatter';

describe('splitFrontmatter', () => {
  it('splits the YAML mapping from the body, keeping dates as strings', () => {
    expect(splitFrontmatter('---\ntitle: A\ndate: 2025-01-10\n---\n## Body\n')).toEqual({ data: { title: 'A', date: '2025-01-10' }, body: '## Body\n' });
  });

  it('reads CRLF line ends and an empty frontmatter', () => {
    expect(splitFrontmatter('---\r\ntitle: A\r\n---\r\nText')).toEqual({ data: { title: 'A' }, body: 'Text' });
    expect(splitFrontmatter('---\n---\nText')).toEqual({ data: {}, body: 'Text' });
  });

  it.each([
    ['no frontmatter', '# Title\n', 'must start with a YAML frontmatter block opened by "---"'],
    ['an unclosed block', '---\ntitle: A\n', 'frontmatter is not closed by a "---" line'],
    ['a repeated key', '---\ntitle: A\ntitle: B\n---\n', 'frontmatter is not valid YAML'],
    ['a list instead of a mapping', '---\n- a\n---\n', 'frontmatter must be a YAML mapping of keys to values'],
  ])('refuses %s', (_name, source, message) => {
    expect(() => splitFrontmatter(source)).toThrow(message);
  });
});

describe('frontmatter read as CommonMark', () => {
  it('is a heading when the closing "---" follows a line of text (a setext underline)', () => {
    expect(frontmatterRendersAsHeading('---\ntitle: A\ntags: [http, caching]\n---\nBody.\n')).toBe(true);
    expect(frontmatterRendersAsHeading('---\ntitle: A\ndraft: true\n---\n')).toBe(true);
  });

  it('is no heading when a blank line comes before the closing "---", or the file has no frontmatter', () => {
    expect(frontmatterRendersAsHeading('---\ntitle: A\ntags: [http, caching]\n\n---\n# Body\n')).toBe(false);
    expect(frontmatterRendersAsHeading('# Just a heading\n')).toBe(false);
  });

  it('looks at the frontmatter only, not at the headings of the body', () => {
    expect(frontmatterRendersAsHeading('---\ntitle: A\n\n---\nText\n---\n## Body\n')).toBe(false);
  });
});
