import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODE_BACKGROUNDS, codeClasses, codeThemeCss, contrast, readableColor, themeColors } from '@/lib/content/code-theme';
import { renderMarkdown } from '@/lib/content/render';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const css = fs.readFileSync(path.join(ROOT, 'app/code-theme.css'), 'utf8');

describe('code colours as classes', () => {
  it('app/code-theme.css is the generated stylesheet (run `npx tsx scripts/code-theme.ts` after changing a theme)', () => {
    expect(css).toBe(codeThemeCss());
  });

  it('uses the code backgrounds of app/globals.css', () => {
    const globals = fs.readFileSync(path.join(ROOT, 'app/globals.css'), 'utf8');
    const [, light, dark] = /--code-bg:\s*light-dark\((#[0-9a-f]{6}),\s*(#[0-9a-f]{6})\)/i.exec(globals) ?? [];
    expect([light?.toLowerCase(), dark?.toLowerCase()]).toEqual([CODE_BACKGROUNDS.light, CODE_BACKGROUNDS.dark]);
  });

  it.each(['light', 'dark'] as const)('gives every %s colour at least 4.5:1 contrast on the code background', (mode) => {
    for (const color of themeColors(mode)) {
      const shown = readableColor(color, mode);
      expect(contrast(shown, CODE_BACKGROUNDS[mode]), `${color} → ${shown}`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('keeps colours that already read well', () => {
    expect(readableColor('#24292e', 'light')).toBe('#24292e');
    expect(readableColor('#e1e4e8', 'dark')).toBe('#e1e4e8');
  });

  it.each([
    ['--shiki-light:#D73A49;--shiki-dark:#F97583', ['sl-d73a49', 'sd-f97583']],
    ['--shiki-light:#24292e;--shiki-dark:#e1e4e8;--shiki-light-bg:#fff;--shiki-dark-bg:#24292e', ['sl-24292e', 'sd-e1e4e8']],
    ['--shiki-light:#24292E;--shiki-light-font-style:italic;--shiki-dark:#E1E4E8;--shiki-dark-font-style:italic', ['sl-24292e', 'sl-i', 'sd-e1e4e8', 'sd-i']],
    ['--shiki-light-font-weight:bold;--shiki-dark-text-decoration:underline line-through', ['sl-b', 'sd-us']],
    ['--shiki-light:#123456', []],
    ['color:red', []],
  ])('%s → %j', (style, classes) => {
    expect(codeClasses(style)).toEqual(classes);
  });

  it('leaves no inline style in highlighted code, and every class it writes is defined', { timeout: 90_000 }, async () => {
    // Italic, bold and several colours in each theme; few grammars, since loading one is slow.
    const samples = ['ts', 'markdown', 'diff'];
    const markdown = samples.map((lang) => `\`\`\`${lang}\n<a href="x">*b* **c**</a> // d\nconst e = "f"; # g\n- h\n+ i\n\`\`\`\n`).join('\n');
    const { html } = await renderMarkdown(markdown);
    expect(html).not.toMatch(/\sstyle=/);
    const used = new Set([...html.matchAll(/class="([^"]*)"/g)].flatMap((match) => (match[1] ?? '').split(' ')).filter((name) => /^s[ld]-/.test(name)));
    expect(used.size).toBeGreaterThan(4);
    for (const name of used) expect(css, name).toContain(`.${name} {`);
  });
});
