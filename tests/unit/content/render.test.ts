import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
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

describe('renderMarkdown keeps each result in the build cache', () => {
  const text = '# Kept\n\nA paragraph with `code`.\n';

  async function freshRender(dist: string, version: string, markdown = text) {
    vi.resetModules();
    vi.stubEnv('NEXT_DIST_DIR', dist);
    vi.stubEnv('LECTERN_RENDERER_VERSION', version);
    const { renderMarkdown: render } = await import('@/lib/content/render');
    return render(markdown);
  }

  const keptFiles = (dist: string) =>
    fs.readdirSync(path.join(dist, 'cache', 'lectern-render'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());

  it('a later process reads the kept result instead of rendering; a new renderer version renders again', async () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-render-cache-'));
    try {
      const first = await freshRender(dist, 'one');
      const [kept] = keptFiles(dist);
      expect(kept).toBeDefined();
      const file = path.join(kept!.parentPath, kept!.name);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(first);
      // Marked on disk: only a read of the kept file can return the mark.
      fs.writeFileSync(file, JSON.stringify({ ...first, html: '<p>from the cache</p>' }));
      expect((await freshRender(dist, 'one')).html).toBe('<p>from the cache</p>');
      expect((await freshRender(dist, 'two')).html).toBe(first.html);
      expect(keptFiles(dist)).toHaveLength(2);
    } finally {
      vi.unstubAllEnvs();
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });

  it('another text is another entry', async () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-render-cache-'));
    try {
      await freshRender(dist, 'one');
      const other = await freshRender(dist, 'one', '# Other\n');
      expect(other.html).toContain('Other');
      expect(keptFiles(dist)).toHaveLength(2);
    } finally {
      vi.unstubAllEnvs();
      fs.rmSync(dist, { recursive: true, force: true });
    }
  });
});
