import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/**
 * A post dated ahead is rendered before its time in a thread of its own, into the build's cache,
 * under the version the build recorded: what the page, the feeds and the newsletter then read at
 * its time instead of rendering it on the thread that answers readers.
 */
let root: string;
let dist: string;
const soon = Date.now() + 60_000;
const later = Date.now() + 3_600_000;

function post(slug: string, date: number, marker: string): string {
  return `---\ntitle: ${slug}\ndescription: A post for the render ahead.\ndate: ${new Date(date).toISOString()}\ntags: [testing]\n---\n${marker}\n\n\`\`\`ts\nconst answer: number = 42;\n\`\`\`\n`;
}

/** Every file kept under one kind of the build's cache, read as text. */
function keptFiles(kind: string): string[] {
  return keptPaths(kind).map((file) => fs.readFileSync(file, 'utf8'));
}

function keptPaths(kind: string): string[] {
  const folder = path.join(dist, 'cache', `lectern-${kind}`);
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-render-ahead-'));
  dist = path.join(root, 'dist');
  const content = path.join(root, 'content');
  fs.cpSync(path.resolve('tests/fixtures/content'), content, { recursive: true });
  fs.writeFileSync(path.join(content, 'posts', 'due-soon.md'), post('due-soon', soon, 'DUE-SOON-MARKER'));
  fs.writeFileSync(path.join(content, 'posts', 'due-later.md'), post('due-later', later, 'DUE-LATER-MARKER'));
  fs.mkdirSync(path.join(dist, 'lectern'), { recursive: true });
  fs.writeFileSync(
    path.join(dist, 'lectern', 'published.json'),
    JSON.stringify({
      slugs: ['due-later', 'due-soon', 'alpha-post'],
      dates: [later, soon, Date.parse('2024-01-01')],
      builtAt: Date.now(),
      prerendered: 1,
      postTags: [['testing'], ['testing'], ['testing']],
      apps: [],
      rendererVersion: 'the-build',
    }),
  );
  vi.resetModules();
  vi.stubEnv('CONTENT_DIR', content);
  vi.stubEnv('NEXT_DIST_DIR', dist);
});

afterEach(() => {
  vi.unstubAllEnvs();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('renderAheadInThread', () => {
  it('renders the posts due by the time given (the page, the feeds’ and the newsletter’s), and none due later', async () => {
    const { renderAheadInThread } = await import('@/lib/publishing/render-ahead-thread');
    expect(await renderAheadInThread(soon + 1_000)).toBe(1);
    const renders = keptFiles('render');
    // The page's render, and the feeds' with the post's URL as base.
    expect(renders).toHaveLength(2);
    for (const render of renders) expect(JSON.parse(render).html).toContain('DUE-SOON-MARKER');
    const mails = keptFiles('newsletter-mail');
    expect(mails).toHaveLength(1);
    expect(JSON.parse(mails[0]!)).toMatchObject({ slug: 'due-soon', subject: 'due-soon' });
    expect([...renders, ...mails].join('')).not.toContain('DUE-LATER-MARKER');
  });

  it('leaves what it rendered for the server’s own copy of the code, which reads it under the build’s version', async () => {
    const { renderAheadInThread } = await import('@/lib/publishing/render-ahead-thread');
    await renderAheadInThread(soon + 1_000);
    // Marked, so what is read can be told from a render made anew.
    for (const file of keptPaths('render')) {
      const kept = JSON.parse(fs.readFileSync(file, 'utf8'));
      fs.writeFileSync(file, JSON.stringify({ ...kept, html: `${kept.html}KEPT-COPY` }));
    }
    const { renderMarkdown } = await import('@/lib/content/render');
    const body = fs.readFileSync(path.join(root, 'content', 'posts', 'due-soon.md'), 'utf8').split('---\n')[2]!;
    expect((await renderMarkdown(body)).html).toContain('KEPT-COPY');
  });

  it('renders nothing when no post is due by then', async () => {
    const { renderAheadInThread } = await import('@/lib/publishing/render-ahead-thread');
    expect(await renderAheadInThread(soon - 1_000)).toBe(0);
    expect(keptFiles('render')).toEqual([]);
  });
});
