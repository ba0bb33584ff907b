import { describe, expect, it } from 'vitest';
import { splitFrontmatter } from '@/lib/content/frontmatter';

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
