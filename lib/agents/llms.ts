import { absoluteUrl } from '../config';
import { publishedPosts, site, urls } from '../content';
import { MCP_PATH } from '../mcp/names';

/** The agent files and read endpoints, described once for llms.txt, the API catalog and the docs page. */
export const agentFiles = [
  { path: '/llms-full.txt', type: 'text/markdown', title: 'Full text of every post', description: 'Every published post in one markdown document, newest first.' },
  { path: '/pricing.md', type: 'text/markdown', title: 'Pricing', description: 'Prices of the training, the digital bundles and the book.' },
  { path: '/api/home/markdown', type: 'text/markdown', title: 'Home page', description: 'The home page as markdown, with the latest posts.' },
  { path: '/openapi.json', type: 'application/json', title: 'OpenAPI description', description: 'OpenAPI 3.1 description of every endpoint.' },
  { path: '/.well-known/api-catalog', type: 'application/linkset+json', title: 'API catalog', description: 'RFC 9727 catalog of the files and endpoints.' },
] as const;

/** The markdown twins of the main pages (every page has one: lib/http/markdown-twins.ts). */
export const pageTwins = [
  { path: '/index.md', type: 'text/markdown', title: 'Home page', description: 'The home page as markdown, with the latest posts.' },
  { path: '/blog.md', type: 'text/markdown', title: 'Blog', description: 'Every post and tag, newest first, linked to their markdown.' },
  { path: '/apps.md', type: 'text/markdown', title: 'Desktop apps', description: 'Each desktop app with its version, platforms and download link.' },
  { path: '/docs/api.md', type: 'text/markdown', title: 'API and agent files', description: 'How to read the site from a program: endpoints, markdown twins and errors.' },
  { path: '/support.md', type: 'text/markdown', title: 'Support', description: 'How to write to the site, from its form or from a program.' },
] as const;

export const optionalFiles = [
  { path: '/api/blog', type: 'application/json', title: 'Post list (JSON)', description: 'Every published post with its URLs, newest first.' },
  { path: '/api/rss', type: 'application/rss+xml', title: 'RSS feed', description: 'RSS 2.0 feed of the newest posts with full content; each tag has its own at /tags/{tag}/rss.xml.' },
  { path: '/atom.xml', type: 'application/atom+xml', title: 'Atom feed', description: 'Atom 1.0 feed of the newest posts with full content.' },
  { path: '/feed.json', type: 'application/feed+json', title: 'JSON Feed', description: 'JSON Feed 1.1 of the newest posts with full content.' },
  { path: '/sitemap.xml', type: 'application/xml', title: 'Sitemap', description: 'Every indexable page.' },
] as const;

/**
 * The MCP server: answered only to POST, so llms.txt and the API catalog point
 * at its documentation (which a GET reaches) and name the endpoint in words.
 */
export const mcpServer = {
  path: MCP_PATH,
  docs: '/docs/api#mcp',
  title: 'MCP server',
  description: 'Model Context Protocol server (Streamable HTTP, stateless, POST only) with the read-only tools search_posts, get_post and list_posts, and llms.txt and pricing.md as resources.',
} as const;

/** Text placed inside `[...]` of a link line: the llmstxt.org pattern allows no brackets there. */
function linkTitle(text: string): string {
  return text.replace(/\[/g, '(').replace(/\]/g, ')').replace(/\s+/g, ' ').trim();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function linkLine(title: string, url: string, description: string): string {
  return `- [${linkTitle(title)}](${url}): ${oneLine(description)}`;
}

/** /llms.txt in the llmstxt.org layout: H1, summary quote, guidance, link sections, Optional last. */
export function llmsTxt(): string {
  const { name, summary, citation, reuse } = site();
  const posts = publishedPosts().map((post) => linkLine(post.title, urls.postMarkdown(post.slug), `${post.description} (${post.date})`));
  return [
    `# ${oneLine(name)}`,
    '',
    `> ${oneLine(summary)}`,
    '',
    `${oneLine(citation)} ${oneLine(reuse)} Every page is available as markdown at its URL plus \`.md\` (\`/index.md\` for the home page), or at its own URL with \`Accept: text/markdown\`.`,
    '',
    '## Posts',
    '',
    ...posts,
    '',
    '## Pages',
    '',
    ...pageTwins.map((file) => linkLine(file.title, absoluteUrl(file.path), file.description)),
    '',
    '## Agent files',
    '',
    ...agentFiles.map((file) => linkLine(file.title, absoluteUrl(file.path), file.description)),
    linkLine(mcpServer.title, absoluteUrl(mcpServer.docs), `${mcpServer.description} Endpoint: ${absoluteUrl(mcpServer.path)}`),
    '',
    '## Optional',
    '',
    ...optionalFiles.map((file) => linkLine(file.title, absoluteUrl(file.path), file.description)),
    '',
  ].join('\n');
}
