import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { frontmatterRendersAsHeading } from '@/lib/content/frontmatter';
import { ContentError, isPublished, loadContent, newestFirst, type Post } from '@/lib/content/load';

let root: string;

const SITE = `name: Test
summary: A test site.
author:
  name: Someone
citation: Cite it.
`;
const HOME = '---\ntitle: Home\ndescription: The home.\n---\nHello.\n';

function write(relative: string, text: string) {
  const file = path.join(root, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function post(slug: string, frontmatter: string, body = 'Body.\n') {
  write(`posts/${slug}.md`, `---\n${frontmatter}\n---\n${body}`);
}

const valid = 'title: A post\ndescription: About it.\ndate: 2025-01-01';

function problemsOf(): { file: string; key: string; message: string }[] {
  try {
    loadContent(root);
  } catch (error) {
    expect(error).toBeInstanceOf(ContentError);
    return (error as ContentError).problems.map((problem) => ({ ...problem, file: path.basename(problem.file) }));
  }
  throw new Error('expected a ContentError');
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-content-'));
  write('site.yaml', SITE);
  write('home.md', HOME);
  fs.mkdirSync(path.join(root, 'posts'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('loadContent', () => {
  it("takes an old site.yaml's reuse key and ignores it, warning once that the terms module states the rule", () => {
    write('site.yaml', `${SITE}reuse: Whole articles may be republished.\n`);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const content = loadContent(root);
      loadContent(root);
      expect(content.site).not.toHaveProperty('reuse');
      expect(content.site.citation).toBe('Cite it.');
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toMatch(/`reuse` is ignored: .*lib\/agents\/terms\.ts/);
    } finally {
      warn.mockRestore();
    }
  });

  it('refuses a post called "page": /blog/page/2 is the second page of the blog', () => {
    post('page', valid);
    expect(problemsOf()).toEqual([{ file: 'page.md', key: '', message: expect.stringMatching(/"page" is reserved/) }]);
  });

  it('loads a valid post with defaults and keeps the source byte for byte', () => {
    const source = `---\n${valid}\n---\n## Hi\n\nCafé — ok\r\n`;
    write('posts/a-post.md', source);
    const [loaded] = loadContent(root).posts;
    expect(loaded).toMatchObject({ slug: 'a-post', title: 'A post', tags: [], draft: false, date: '2025-01-01', source });
    expect(loaded?.body).toBe('## Hi\n\nCafé — ok\r\n');
  });

  it.each([
    ['title', 'description: d\ndate: 2025-01-01', /required|expected string/i],
    ['title', 'title: ""\ndescription: d\ndate: 2025-01-01', /empty/],
    ['title', 'title: [1]\ndescription: d\ndate: 2025-01-01', /string/],
    ['description', 'title: t\ndate: 2025-01-01', /required|expected string/i],
    ['description', `title: t\ndescription: ${'x'.repeat(301)}\ndate: 2025-01-01`, /300/],
    ['date', 'title: t\ndescription: d', /YYYY-MM-DD/],
    ['date', 'title: t\ndescription: d\ndate: 2025-13-01', /YYYY-MM-DD/],
    ['date', 'title: t\ndescription: d\ndate: 01/02/2025', /YYYY-MM-DD/],
    ['date', 'title: t\ndescription: d\ndate: 2025-01-01T10:00:00', /YYYY-MM-DD/],
    ['updated', 'title: t\ndescription: d\ndate: 2025-01-01\nupdated: yesterday', /YYYY-MM-DD/],
    ['updated', 'title: t\ndescription: d\ndate: 2025-01-05\nupdated: 2025-01-04', /not be before date/],
    ['tags', 'title: t\ndescription: d\ndate: 2025-01-01\ntags: http', /array/i],
    ['tags.0', 'title: t\ndescription: d\ndate: 2025-01-01\ntags: [""]', /empty/],
    ['draft', 'title: t\ndescription: d\ndate: 2025-01-01\ndraft: "yes"', /boolean/i],
    ['drfat', 'title: t\ndescription: d\ndate: 2025-01-01\ndrfat: true', /not a known key/],
  ])('reports %s problems naming file, key and reason', (key, frontmatter, reason) => {
    post('bad-post', frontmatter);
    const problems = problemsOf();
    expect(problems).toContainEqual({ file: 'bad-post.md', key, message: expect.stringMatching(reason) });
  });

  it('accepts a date-time with offset and a later updated', () => {
    post('a-post', 'title: t\ndescription: d\ndate: 2025-01-01T10:00:00+02:00\nupdated: 2025-01-02');
    expect(loadContent(root).posts[0]?.dateMillis).toBe(Date.parse('2025-01-01T08:00:00Z'));
  });

  it('reports every problem of every file in one error', () => {
    post('first-bad', 'title: t\ndate: nope');
    post('second-bad', `${valid}\nextra: 1`);
    write('posts/Bad_Name.md', `---\n${valid}\n---\n`);
    write('posts/notes.txt', 'x');
    write('posts/no-frontmatter.md', '# Just text\n');
    write('posts/unclosed.md', '---\ntitle: t\n');
    write('posts/bad-yaml.md', '---\ntitle: [unclosed\n---\n');
    write('posts/duplicate-key.md', `---\n${valid}\ntitle: again\n---\n`);
    let error: ContentError | undefined;
    try {
      loadContent(root);
    } catch (caught) {
      error = caught as ContentError;
    }
    expect(error).toBeInstanceOf(ContentError);
    const files = new Set(error?.problems.map((problem) => path.basename(problem.file)));
    expect([...files].sort()).toEqual(
      ['Bad_Name.md', 'bad-yaml.md', 'duplicate-key.md', 'first-bad.md', 'no-frontmatter.md', 'notes.txt', 'second-bad.md', 'unclosed.md'].sort(),
    );
    expect(error?.message).toMatch(/first-bad\.md › description: /);
    expect(error?.message).toMatch(/first-bad\.md › date: /);
    expect(error?.message).toMatch(/second-bad\.md › extra: is not a known key/);
  });

  it('reports a missing site.yaml or home.md', () => {
    fs.rmSync(path.join(root, 'site.yaml'));
    fs.rmSync(path.join(root, 'home.md'));
    expect(
      problemsOf()
        .map((problem) => problem.file)
        .sort(),
    ).toEqual(['home.md', 'site.yaml']);
  });

  it('validates apps and products too', () => {
    write('apps/bad-app.md', '---\nname: A\ndescription: d\nversion: one\ndownload: ftp://x\n---\n');
    write(
      'products/bad-offer.md',
      '---\nkind: offer\ntitle: T\ndescription: d\nprice: 1.5\ncurrency: eur\nstarts: 2026-01-02T00:00:00Z\nends: 2026-01-01T00:00:00Z\n---\n',
    );
    const keys = problemsOf().map((problem) => `${problem.file} ${problem.key}`);
    expect(keys).toEqual(expect.arrayContaining(['bad-app.md version', 'bad-app.md download', 'bad-offer.md price', 'bad-offer.md currency']));
  });
});

describe('published filter and order', () => {
  const make = (slug: string, date: string, draft = false) => ({ slug, draft, dateMillis: Date.parse(date) }) as Post;
  const now = Date.parse('2026-06-01T12:00:00Z');

  it('publishes a post dated now or earlier that is not a draft', () => {
    expect(isPublished(make('a', '2026-06-01T12:00:00Z'), now)).toBe(true);
    expect(isPublished(make('a', '2020-01-01T00:00:00Z'), now)).toBe(true);
  });

  it('withholds drafts and future posts', () => {
    expect(isPublished(make('a', '2020-01-01T00:00:00Z', true), now)).toBe(false);
    expect(isPublished(make('a', '2026-06-01T12:00:01Z'), now)).toBe(false);
  });

  it('never publishes a draft whose draft key is misspelled: the file fails to load', () => {
    post('typo', `${valid}\ndrfat: true`);
    expect(() => loadContent(root)).toThrow(/drfat: is not a known key/);
  });

  it('orders newest first, ties by slug ascending', () => {
    const posts = [make('b', '2025-01-01T00:00:00Z'), make('c', '2025-03-01T00:00:00Z'), make('a', '2025-01-01T00:00:00Z'), make('d', '2024-01-01T00:00:00Z')];
    expect(posts.sort(newestFirst).map((entry) => entry.slug)).toEqual(['c', 'a', 'b', 'd']);
  });
});

describe('the starter content', () => {
  it('loads without problems and shows the site off', () => {
    const content = loadContent(path.resolve('content'));
    expect(content.posts.length).toBeGreaterThanOrEqual(8);
    expect(content.apps.length).toBeGreaterThanOrEqual(2);
    const kinds = content.products.map((product) => product.kind);
    expect(kinds.filter((kind) => kind === 'training')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'bundle').length).toBeGreaterThanOrEqual(2);
    expect(kinds).toContain('book');
  });

  it('serves markdown twins whose frontmatter never reads as a heading (what `npm run check` warns of)', () => {
    const content = loadContent(path.resolve('content'));
    const headed = [{ name: 'home', source: content.home.source }, ...content.posts.map((post) => ({ name: post.slug, source: post.source }))]
      .filter((file) => frontmatterRendersAsHeading(file.source))
      .map((file) => file.name);
    expect(headed).toEqual([]);
  });
});
