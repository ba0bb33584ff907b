import { describe, expect, it } from 'vitest';
import { apiDocsMarkdown, markdownTwins, readEndpoints } from '@/lib/agents/api-docs';
import { settings } from '@/lib/settings';
import { NEGOTIATED_PATHS } from '@/lib/http/markdown-twins';
import { problemTypes } from '@/lib/http/problem';
import { FIXTURE_SITE, withFixtureContent } from '../../support/fixture-content';

withFixtureContent({ postsPerPage: 7 });

describe('the API docs', () => {
  const markdown = apiDocsMarkdown(settings().site);

  it('lists the read endpoints a program calls, with their media types', () => {
    const rows = new Map(readEndpoints(settings().site).map((row) => [row.path, row.type]));
    expect(rows.get('/api/blog')).toBe('application/json');
    expect(rows.get('/api/blog/{slug}/markdown')).toBe('text/markdown');
    expect(rows.get('/blog/{slug} with Accept: text/markdown')).toBe('text/markdown');
    expect(rows.get('/tags/{tag}/rss.xml')).toBe('application/rss+xml');
    expect(rows.get('/api/apps/{slug}/download')).toBe('302 redirect');
    expect([...rows.keys()].find((path) => path.startsWith('/api/search'))).toBeDefined();
  });

  it('gives the page size of the paginated lists as the site is configured', () => {
    expect(readEndpoints(settings().site).find((row) => row.path.startsWith('/blog/page/'))?.what).toMatch(/^Older posts, 7 a page/);
  });

  it('says the same in markdown: every endpoint row, every page with a twin, every problem type', () => {
    for (const row of readEndpoints(settings().site)) expect(markdown).toContain(`| \`${row.path}\` | \`${row.type}\` |`);
    expect(markdownTwins.map((twin) => twin.page)).toHaveLength(NEGOTIATED_PATHS.length);
    expect(markdown).toContain('| `/blog/{slug}` | `/blog/{slug}.md` |');
    expect(markdown).toContain('| `/` | `/index.md` |');
    for (const name of Object.keys(problemTypes)) expect(markdown).toContain(`${FIXTURE_SITE}/docs/api#problem-${name}`);
  });
});
