import { describe, expect, it } from 'vitest';
import { publishedPosts } from '@/lib/content';
import { renderMarkdown } from '@/lib/content/render';
import { markdownToSections } from '@/lib/search/sections';

describe('markdownToSections', () => {
  it('cuts the plain text at each ## and ### heading, ignoring deeper ones and lines in fenced code', () => {
    const markdown = ['Intro *text*.', '## First', 'One.', '#### Deeper', 'Still one.', '```md', '## Not a heading', '```', '### Second', 'Two.'].join('\n\n');
    const { text, sections } = markdownToSections(markdown);
    expect(sections.map(({ heading, id }) => [heading, id])).toEqual([
      [null, null],
      ['First', 'first'],
      ['Second', 'second'],
    ]);
    expect(sections.map(({ start }, i) => text.slice(start, sections[i + 1]?.start).trim())).toEqual([
      'Intro text.',
      'First One. Deeper Still one.',
      'Second Two.',
    ]);
  });

  it('starts at the first heading when no text comes before it', () => {
    expect(markdownToSections('## Only\n\nText.').sections).toEqual([{ heading: 'Only', id: 'only', start: 0 }]);
  });

  it("gives every heading of the site's posts the id of the rendered page's heading", async () => {
    const posts = publishedPosts();
    expect(posts.length).toBeGreaterThan(5);
    for (const post of posts) {
      const { toc } = await renderMarkdown(post.body);
      const sections = markdownToSections(post.body).sections.filter((section) => section.heading !== null);
      expect(
        sections.map(({ heading, id }) => ({ heading, id })),
        post.slug,
      ).toEqual(toc.map(({ text, id }) => ({ heading: text, id })));
    }
  });
});
