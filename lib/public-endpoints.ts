import { FEED_ITEM_COUNT, feedTypes } from './feeds/feeds';
import { markdownTwinOf } from './http/markdown-twins';
import { MCP_PATH, MCP_SERVER_CARD_PATH } from './agents/mcp-names';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX_LENGTH, SEARCH_WORDS_MAX } from './search/site';
import { settings } from './settings';

/**
 * THE list of what a reader or an agent can GET here: the fixed HTML pages,
 * their markdown twins, the feeds, the agent files and the read API. llms.txt,
 * the API catalog, /openapi.json, the docs page and the sitemap all read it,
 * each taking the entries that belong to it.
 */

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

/** The `##` section of llms.txt an entry is listed under. */
export type LlmsSection = 'pages' | 'agent-files' | 'optional';

export type PublicEndpoint = {
  kind: 'page' | 'markdown-twin' | 'feed' | 'agent-file' | 'api';
  /** The path (a parameter written `{name}`, as OpenAPI writes it) and the media type of a 200 answer. */
  path: string;
  type: string;
  /** A name, and one line for llms.txt and the OpenAPI summary. */
  title: string;
  description: string;
  /** For a markdown twin: the path of its HTML page. */
  page?: string;
  /** The llms.txt section that links it; absent when llms.txt does not. */
  llms?: LlmsSection;
  /** Listed as an `item` of the API catalog (fixed paths only). */
  catalog: boolean;
  /** An HTML page in the sitemap: `posts` when its content changes with the posts (its lastmod is theirs), `undated` otherwise. */
  sitemap?: 'posts' | 'undated';
  /** Its row in the read-endpoint table of /docs/api: the longer text, and the path or type shown when they differ. */
  docs?: { text: string; path?: string; type?: string };
};

type Facts = Pick<PublicEndpoint, 'path' | 'title' | 'description'> & Partial<PublicEndpoint>;

const page = (facts: Facts): PublicEndpoint => ({ type: 'text/html', kind: 'page', catalog: false, ...facts });

/** The twin of a fixed page, at the path lib/http/markdown-twins.ts gives it. */
function twin(pagePath: string, facts: Omit<Facts, 'path'> & Partial<PublicEndpoint>): PublicEndpoint {
  const markdownPath = markdownTwinOf(pagePath)?.markdownPath;
  if (!markdownPath) throw new Error(`${pagePath} has no markdown twin`);
  return { path: markdownPath, type: 'text/markdown', kind: 'markdown-twin', page: pagePath, llms: 'pages', catalog: true, ...facts };
}

const feed = (facts: Facts & { type: string; docs: PublicEndpoint['docs'] }): PublicEndpoint => ({ kind: 'feed', llms: 'optional', catalog: true, ...facts });

const agentFile = (facts: Facts): PublicEndpoint => ({ type: 'text/markdown', kind: 'agent-file', llms: 'agent-files', catalog: true, ...facts });

const api = (facts: Facts): PublicEndpoint => ({ type: 'application/json', kind: 'api', catalog: false, ...facts });

/** Every public read endpoint, in the order llms.txt and the docs list them. */
export function publicEndpoints(): PublicEndpoint[] {
  const feedText = (what: string, format: string) => `${what} of the newest ${FEED_ITEM_COUNT} posts, full HTML in ${format}.`;
  return [
    page({ path: '/', title: 'Home page', description: 'The home page, with the latest posts.', sitemap: 'posts' }),
    page({ path: '/blog', title: 'Blog', description: 'Every post, newest first.', sitemap: 'posts' }),
    page({ path: '/apps', title: 'Desktop apps', description: 'The desktop apps.', sitemap: 'undated' }),
    page({ path: '/pricing', title: 'Pricing', description: 'The training, the bundles and the book.', sitemap: 'undated' }),
    page({ path: '/docs/api', title: 'API and agent files', description: 'How to read the site from a program.', sitemap: 'undated' }),
    page({ path: '/support', title: 'Support', description: 'The support form.' }),

    {
      path: '/llms.txt',
      type: 'text/markdown',
      title: 'llms.txt',
      description: 'Index of the site for agents (llmstxt.org).',
      kind: 'agent-file',
      catalog: true,
    },
    agentFile({ path: '/llms-full.txt', title: 'Full text of every post', description: 'Every published post in one markdown document, newest first.' }),

    twin('/', { title: 'Home page', description: 'The home page as markdown, with the latest posts.' }),
    twin('/blog', { title: 'Blog', description: 'Every post and tag, newest first, linked to their markdown.' }),
    twin('/apps', { title: 'Desktop apps', description: 'Each desktop app with its version, platforms and download link.' }),
    twin('/pricing', { title: 'Pricing', description: 'Prices of the training, the digital bundles and the book.', llms: 'agent-files' }),
    twin('/docs/api', { title: 'API and agent files', description: 'How to read the site from a program: endpoints, markdown twins and errors.' }),
    twin('/support', { title: 'Support', description: 'How to write to the site, from its form or from a program.' }),

    api({
      path: '/api/blog',
      title: 'Post list (JSON)',
      description: 'Every published post with its URLs, newest first.',
      llms: 'optional',
      catalog: true,
      docs: { text: 'Every published post, newest first: {"posts":[…]}. Optional limit: a positive integer.' },
    }),
    api({
      path: '/api/search',
      catalog: true,
      title: 'Search',
      description: 'Published posts matching every word of q, best first, each with a plain-text snippet.',
      docs: {
        path: '/api/search?q=…&limit=…',
        text: `Published posts matching every word of q (1 to ${SEARCH_QUERY_MAX_LENGTH} characters, at most ${SEARCH_WORDS_MAX} different words; prefixes and small typos match; title and tags weigh most), best first: {"query","total","results":[…]}, each result with slug, title, description, date, tags, url, markdownUrl, section and sectionUrl (the section of the best match, with its #anchor), a plain-text snippet and marks (the matched words' offsets in it). limit: 1 to ${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT}.`,
      },
    }),
    api({
      path: '/api/blog/{slug}/markdown',
      type: 'text/markdown',
      title: 'A post as markdown',
      description: 'A post as markdown, YAML frontmatter first.',
      docs: { text: 'The markdown source of one post, YAML frontmatter first.' },
    }),
    {
      path: '/blog/{slug}.md',
      type: 'text/markdown',
      title: 'A post as markdown',
      description: 'The same markdown at the post URL plus .md.',
      kind: 'markdown-twin',
      page: '/blog/{slug}',
      catalog: false,
      docs: { text: 'The same markdown, at the post URL plus .md.' },
    },
    page({
      path: '/blog/{slug}',
      title: 'A post',
      description: 'The post page; markdown when Accept ranks text/markdown above text/html.',
      docs: {
        path: '/blog/{slug} with Accept: text/markdown',
        type: 'text/markdown',
        text: 'The same markdown, chosen by content negotiation (q-values honoured; responses vary on Accept).',
      },
    }),
    {
      path: '/tags/{tag}.md',
      type: 'text/markdown',
      title: 'A tag page as markdown',
      description: 'Markdown twin of a tag page: its posts, newest first.',
      kind: 'markdown-twin',
      page: '/tags/{tag}',
      catalog: false,
    },
    agentFile({
      path: '/api/home/markdown',
      title: 'Home page',
      description: 'The home page as markdown, with the latest posts.',
      kind: 'api',
      docs: { text: 'The homepage as markdown, with links to the latest posts.' },
    }),

    feed({
      path: '/api/rss',
      type: feedTypes.rss,
      title: 'RSS feed',
      description: 'RSS 2.0 feed of the newest posts with full content; each tag has its own at /tags/{tag}/rss.xml.',
      docs: { text: feedText('RSS 2.0 feed', 'content:encoded') },
    }),
    feed({
      path: '/atom.xml',
      type: feedTypes.atom,
      title: 'Atom feed',
      description: 'Atom 1.0 feed of the newest posts with full content.',
      docs: { text: feedText('Atom 1.0 feed', 'content') },
    }),
    feed({
      path: '/feed.json',
      type: feedTypes.json,
      title: 'JSON Feed',
      description: 'JSON Feed 1.1 of the newest posts with full content.',
      docs: { text: feedText('JSON Feed 1.1', 'content_html') },
    }),
    feed({
      path: '/tags/{tag}/rss.xml',
      type: feedTypes.rss,
      title: 'RSS feed of a tag',
      description: 'RSS 2.0 feed of the newest posts with one tag.',
      llms: undefined,
      catalog: false,
      docs: { text: `RSS 2.0 feed of the newest ${FEED_ITEM_COUNT} posts with one tag ({tag} as in the tag page URL /tags/{tag}).` },
    }),

    api({
      path: '/api/apps/{slug}/download',
      type: 'text/html',
      title: 'App download',
      description: 'Redirect to the current build of a desktop app.',
      docs: { type: '302 redirect', text: 'Redirects to the current build of a desktop app.' },
    }),
    page({
      path: '/blog/page/{n}',
      title: 'Older posts',
      description: 'The later pages of /blog and of each tag page.',
      docs: {
        path: '/blog/page/{n}, /tags/{tag}/page/{n}',
        text: `Older posts, ${settings().site.postsPerPage} a page, newest first, from page 2 (page 1 is /blog or /tags/{tag}), with rel="prev" and rel="next" links; a page past the last is a 404.`,
      },
    }),

    agentFile({ path: '/openapi.json', type: 'application/json', title: 'OpenAPI description', description: 'OpenAPI 3.1 description of every endpoint.' }),
    agentFile({
      path: API_CATALOG_PATH,
      type: 'application/linkset+json',
      title: 'API catalog',
      description: 'RFC 9727 catalog of the files and endpoints.',
      catalog: false,
    }),
    agentFile({
      path: MCP_SERVER_CARD_PATH,
      type: 'application/json',
      title: 'MCP server card',
      description: 'Name, version, endpoint, capabilities, tools and resources of the MCP server (draft SEP-2127 server card).',
    }),
    agentFile({ path: '/sitemap.xml', type: 'application/xml', title: 'Sitemap', description: 'Every indexable page.', llms: 'optional' }),
    {
      path: '/robots.txt',
      type: 'text/plain',
      title: 'robots.txt',
      description: 'Crawling rules with the Content-Signal policy.',
      kind: 'agent-file',
      catalog: true,
    },
  ];
}

/** The entries llms.txt links under one section, in order. */
export function llmsEntries(section: LlmsSection): PublicEndpoint[] {
  return publicEndpoints().filter((entry) => entry.llms === section);
}

/**
 * The MCP server: answered only to POST, so llms.txt and the API catalog point
 * at its documentation (which a GET reaches) and name the endpoint in words.
 */
export const mcpServer = {
  path: MCP_PATH,
  docs: '/docs/api#mcp',
  title: 'MCP server',
  description:
    'Model Context Protocol server (Streamable HTTP, stateless, POST only) with the read-only tools search, fetch, search_posts, get_post and list_posts, and llms.txt and pricing.md as resources.',
} as const;
