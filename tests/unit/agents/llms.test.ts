import { describe, expect, it } from 'vitest';
import { llmsTxt } from '@/lib/agents/llms';
import { markdownTwinOf } from '@/lib/http/markdown-twins';
import { FIXTURE_SITE, PUBLISHED_SLUGS, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

/** llms.txt's link lines by `##` section: [title, url, description]. */
function sections(text: string): Map<string, [string, string, string][]> {
  const bySection = new Map<string, [string, string, string][]>();
  let current: [string, string, string][] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) bySection.set(line.slice(3), (current = []));
    const link = /^- \[([^\]]+)\]\(([^)]+)\): (.+)$/.exec(line);
    if (link) current.push([link[1]!, link[2]!, link[3]!]);
  }
  return bySection;
}

const paths = (links: [string, string, string][] | undefined) => (links ?? []).map(([, url]) => url.replace(FIXTURE_SITE, ''));

describe('llms.txt', () => {
  const text = llmsTxt();
  const bySection = sections(text);

  it('opens with the site name and summary, and ends with the Optional section', () => {
    expect(text).toMatch(/^# Fixture & Co\n\n> A fixture site for lectern's contract tests\.\n\n/);
    expect([...bySection.keys()]).toEqual(['Posts', 'Pages', 'Agent files', 'Optional']);
  });

  it('links every published post to its markdown, newest first, and no draft or future post', () => {
    expect(paths(bySection.get('Posts'))).toEqual(PUBLISHED_SLUGS.map((slug) => `/blog/${slug}.md`));
    expect(text).not.toMatch(/draft-post|future-post/);
  });

  it('links the markdown twins of the pages, each the twin the page itself advertises', () => {
    const pages = paths(bySection.get('Pages'));
    expect(pages).toEqual(['/index.md', '/blog.md', '/apps.md', '/docs/api.md', '/support.md']);
    for (const page of ['/', '/blog', '/apps', '/docs/api', '/support']) expect(pages).toContain(markdownTwinOf(page)?.markdownPath);
  });

  it('lists the agent files (the MCP server card and the licence among them), the MCP server by its documentation, and the feeds and sitemap as optional', () => {
    expect(paths(bySection.get('Agent files'))).toEqual([
      '/llms-full.txt',
      '/pricing.md',
      '/api/home/markdown',
      '/openapi.json',
      '/.well-known/api-catalog',
      '/.well-known/mcp.json',
      '/license.xml',
      '/docs/api#mcp',
    ]);
    expect(bySection.get('Agent files')?.at(-1)?.[2]).toContain(`Endpoint: ${FIXTURE_SITE}/mcp`);
    expect(paths(bySection.get('Optional'))).toEqual(['/api/blog', '/api/rss', '/atom.xml', '/feed.json', '/sitemap.xml']);
  });

  it('links no path twice', () => {
    const all = [...bySection.values()].flatMap(paths);
    expect(new Set(all).size).toBe(all.length);
  });
});
