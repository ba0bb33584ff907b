import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '@/lib/content/render';

describe('renderMarkdown', () => {
  it('renders GFM tables and task lists', async () => {
    const { html } = await renderMarkdown('| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n');
    expect(html).toContain('<table>');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('type="checkbox"');
  });

  it('gives headings anchors and builds a table of contents from h2 and h3', async () => {
    const { html, toc } = await renderMarkdown('## First part\n\ntext\n\n### A detail\n\n#### Deep\n\n## Second part\n');
    expect(html).toContain('<h2 id="first-part"><a class="heading-link" href="#first-part">First part</a></h2>');
    expect(toc).toEqual([
      { depth: 2, id: 'first-part', text: 'First part' },
      { depth: 3, id: 'a-detail', text: 'A detail' },
      { depth: 2, id: 'second-part', text: 'Second part' },
    ]);
  });

  it('highlights code at build time with light and dark colours', async () => {
    const { html } = await renderMarkdown('```ts\nconst answer: number = 42;\n```\n');
    expect(html).toMatch(/<pre class="shiki[^"]*"/);
    // Colours are classes (app/code-theme.css), never inline styles, so pages keep a strict CSP.
    expect(html).toMatch(/class="sl-[0-9a-f]{6} sd-[0-9a-f]{6}"/);
    expect(html).not.toContain('style=');
  });

  it('falls back to plain text for an unknown language', async () => {
    const { html } = await renderMarkdown('```nosuchlang\nx <y>\n```\n');
    expect(html).toContain('x &#x3C;y>');
  });

  it.each([
    ['<script>alert(1)</script>', 'alert(1)'],
    ['<img src="x" onerror="alert(1)">', 'onerror'],
    ['[click](javascript:alert(1))', 'javascript:'],
    ['<iframe src="https://evil.example"></iframe>', '<iframe'],
    ['<a href="#" onclick="x()">a</a>', 'onclick'],
    ['<style>body{display:none}</style>', '<style'],
  ])('never lets raw HTML run: %s', async (markdown, forbidden) => {
    const { html } = await renderMarkdown(markdown);
    expect(html).not.toContain(forbidden);
  });

  it('keeps harmless raw HTML', async () => {
    const { html } = await renderMarkdown('Press <kbd>Ctrl</kbd>.');
    expect(html).toContain('<kbd>Ctrl</kbd>');
  });

  it('estimates reading time at about 230 words a minute', async () => {
    const { readingMinutes, words } = await renderMarkdown(`${'word '.repeat(690)}\n`);
    expect(words).toBe(690);
    expect(readingMinutes).toBe(3);
    expect((await renderMarkdown('short')).readingMinutes).toBe(1);
  });

  it('sizes local images and loads them lazily', async () => {
    const { html } = await renderMarkdown('![A diagram](/images/test-fixture.svg)');
    expect(html).toMatch(/<img src="\/images\/test-fixture.svg" alt="A diagram" loading="lazy" decoding="async" width="40" height="20">/);
  });
});
