import type { z } from 'zod';
import type { Settings } from './settings';
import { blogListSchema, blogQuerySchema } from './feeds/blog-json';
import { FEED_ITEM_COUNT, feedTypes, jsonFeedSchema } from './feeds/feeds';
import { markdownTwinOf } from './http/markdown-twins';
import type { QuerySchema } from './http/query';
import { licenseRoute, mcpRoute, mcpServerCardRoute } from './routes/manifest';
import { SLUG_PATTERN } from './content/schema';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX_LENGTH, SEARCH_WORDS_MAX, searchQuerySchema, searchResultsSchema } from './search/site';
import { problemStatus, type OpenApiResponse } from './write-routes/definition';

/**
 * THE list of what a reader or an agent can GET here: the fixed HTML pages,
 * their markdown twins, the feeds, the agent files and the read API. llms.txt,
 * the API catalog, /openapi.json, the docs page and the sitemap all read it,
 * each taking the entries that belong to it. An entry is the endpoint's whole
 * description: /openapi.json only assembles the entries (lib/agents/openapi.ts),
 * and a route that reads a query validates it with its entry's `query`.
 */

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

/** The `##` section of llms.txt an entry is listed under. */
export type LlmsSection = 'pages' | 'agent-files' | 'optional';

/** What a row of the docs may say of this deployment: the page size of the lists (POSTS_PER_PAGE). */
export type DocsSettings = Pick<Settings['site'], 'postsPerPage'>;

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
  /**
   * Its row in the read-endpoint table of /docs/api: the longer text (made from the settings when
   * it names one), and the path or type shown when they differ.
   */
  docs?: { text: string | ((site: DocsSettings) => string); path?: string; type?: string };
  /** What /openapi.json says of its GET beyond what its kind gives; a page is documented there only with one. */
  operation?: ReadOperation;
};

/**
 * The GET of a read endpoint as /openapi.json describes it. Every read answers a 200 of its
 * type, a 304 and a 412 (it keeps validators), and a 400 when a path parameter does not decode
 * (in the form its 404 takes); the rest is said here.
 */
export type ReadOperation = {
  /** Said under the summary (the entry's description). */
  description?: string;
  /** The query parameters, each given at most once: the schema its route reads the query with (lib/http/query.ts). */
  query?: QuerySchema;
  /** Each `{name}` of the path: what it is, and the pattern a value matches when it has one. */
  pathParameters?: Record<string, { description: string; pattern?: string }>;
  /** The 200's body: a zod schema, under its name in components.schemas, or a JSON Schema written out. Else a string, or any object for a JSON type. */
  body?: { name: string; schema: z.ZodType } | { jsonSchema: Record<string, unknown> };
  /** The 200's media type where it says more than `type` (a profile). */
  type?: string;
  /** Statuses beside those every read answers. */
  responses?: Record<string, OpenApiResponse>;
  /** A redirect answers its `responses` only: no 200, no validators. */
  redirect?: boolean;
};

/** A response of one status with a body of one text media type, for an operation's `responses`. */
const textStatus = (type: string, description: string): OpenApiResponse => ({ description, content: { [type]: { schema: { type: 'string' } } } });
const slugParameter = (what: string) => ({ slug: { description: `The ${what} slug.`, pattern: SLUG_PATTERN.source } });
const tagParameter = (description: string) => ({ tag: { description } });
/** A page's body: HTML, or its markdown when Accept ranks text/markdown first. */
export const pageContent = { 'text/html': { schema: { type: 'string' } }, 'text/markdown': { schema: { type: 'string' } } };

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

/** What /.well-known/mcp.json holds (lib/mcp/card.ts): the fields a client can count on. */
const serverCardSchema = {
  type: 'object',
  required: ['name', 'version', 'remotes', 'capabilities', 'tools'],
  properties: {
    name: { type: 'string' },
    version: { type: 'string' },
    description: { type: 'string' },
    websiteUrl: { type: 'string', format: 'uri' },
    protocolVersion: { type: 'string' },
    remotes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'url'],
        properties: { type: { const: 'streamable-http' }, url: { type: 'string', format: 'uri' } },
      },
    },
    capabilities: { type: 'object' },
    instructions: { type: 'string' },
    tools: { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
    resources: { type: 'array', items: { type: 'object', required: ['uri', 'name'] } },
  },
};

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
    page({ path: '/downloads', title: 'Send me my purchases again', description: 'Fresh download links for what an address bought, mailed to it.' }),

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
      operation: {
        query: blogQuerySchema,
        body: { name: 'BlogList', schema: blogListSchema },
        responses: { '400': problemStatus('`limit` is not a positive integer, or is repeated.') },
      },
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
      operation: {
        description:
          "Title and tags weigh most; prefixes and small typos match. Each result names the section of its best match and gives a plain-text snippet with the matched words as offsets. Answered per query (never rate limited per address); cacheable like every read. Under lectern's server, past a short queue of searches a search is refused with 503 (problem type overloaded) and Retry-After; an agent that signs its requests (Web Bot Auth) is counted by its identity on a budget of its own (RateLimit-Policy searchAgent; each search 1 unit plus 1 per 5 results asked), and past it is answered the same 503 until Retry-After, never 429.",
        query: searchQuerySchema,
        body: { name: 'SearchResults', schema: searchResultsSchema },
        responses: {
          '400': problemStatus(
            '`q` is missing, empty, longer than allowed, has too many different words or is repeated, or `limit` is not an integer in range; `errors` names the parameter.',
          ),
          '503': problemStatus(
            "Too many searches at once on this instance, or a verified agent's searches past its budget (problem type overloaded): try again after Retry-After.",
          ),
        },
      },
    }),
    api({
      path: '/api/blog/{slug}/markdown',
      type: 'text/markdown',
      title: 'A post as markdown',
      description: 'A post as markdown, YAML frontmatter first.',
      docs: { text: 'The markdown source of one post, YAML frontmatter first.' },
      operation: { pathParameters: slugParameter('post'), responses: { '404': problemStatus('No published post has this slug.') } },
    }),
    {
      path: '/blog/{slug}.md',
      type: 'text/markdown',
      title: 'A post as markdown',
      description: 'The post as markdown, YAML frontmatter first, at its URL plus .md.',
      kind: 'markdown-twin',
      page: '/blog/{slug}',
      catalog: false,
      docs: { text: 'The same markdown, at the post URL plus .md.' },
      operation: { pathParameters: slugParameter('post'), responses: { '404': textStatus('text/markdown', 'Not found.') } },
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
      operation: {
        pathParameters: slugParameter('post'),
        responses: { '404': { description: 'Not found (HTML, or markdown when negotiated).', content: pageContent } },
      },
    }),
    {
      path: '/tags/{tag}.md',
      type: 'text/markdown',
      title: 'A tag page as markdown',
      description: 'Its posts, newest first, linked to their markdown.',
      kind: 'markdown-twin',
      page: '/tags/{tag}',
      catalog: false,
      operation: {
        description: 'The tag page itself answers the same to an Accept header that ranks text/markdown first.',
        pathParameters: tagParameter('The tag slug, as in the tag page URL.'),
        responses: { '404': textStatus('text/markdown', 'No published post has this tag.') },
      },
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
      operation: { body: { name: 'JsonFeed', schema: jsonFeedSchema } },
    }),
    feed({
      path: '/tags/{tag}/rss.xml',
      type: feedTypes.rss,
      title: 'RSS feed of a tag',
      description: 'RSS 2.0 feed of the newest posts with one tag.',
      llms: undefined,
      catalog: false,
      docs: { text: `RSS 2.0 feed of the newest ${FEED_ITEM_COUNT} posts with one tag ({tag} as in the tag page URL /tags/{tag}).` },
      operation: {
        pathParameters: tagParameter('The tag as its page URL spells it (/tags/{tag}).'),
        responses: { '404': textStatus('text/html', 'No published post has this tag (the HTML 404 page).') },
      },
    }),

    api({
      path: '/api/apps/{slug}/download',
      type: 'text/html',
      title: 'App download',
      description: 'Redirect to the current build of a desktop app.',
      docs: { type: '302 redirect', text: 'Redirects to the current build of a desktop app.' },
      operation: {
        redirect: true,
        pathParameters: slugParameter('app'),
        responses: {
          '302': { description: 'The current build.', headers: { Location: { required: true, schema: { type: 'string', format: 'uri' } } } },
          '404': problemStatus('No app has this slug.'),
        },
      },
    }),
    page({
      path: '/blog/page/{n}',
      title: 'Older posts',
      description: 'The later pages of /blog and of each tag page.',
      docs: {
        path: '/blog/page/{n}, /tags/{tag}/page/{n}',
        text: ({ postsPerPage }) =>
          `Older posts, ${postsPerPage} a page, newest first, from page 2 (page 1 is /blog or /tags/{tag}), with rel="prev" and rel="next" links; a page past the last is a 404.`,
      },
    }),

    agentFile({ path: '/openapi.json', type: 'application/json', title: 'OpenAPI description', description: 'OpenAPI 3.1 description of every endpoint.' }),
    agentFile({
      path: API_CATALOG_PATH,
      type: 'application/linkset+json',
      title: 'API catalog',
      description: 'RFC 9727 catalog of the files and endpoints.',
      catalog: false,
      operation: { type: API_CATALOG_TYPE },
    }),
    agentFile({
      path: mcpServerCardRoute.path,
      type: 'application/json',
      title: 'MCP server card',
      description: 'Name, version, endpoint, capabilities, tools and resources of the MCP server (draft SEP-2127 server card).',
      operation: { body: { jsonSchema: serverCardSchema } },
    }),
    agentFile({ path: '/sitemap.xml', type: 'application/xml', title: 'Sitemap', description: 'Every indexable page.', llms: 'optional' }),
    {
      path: '/robots.txt',
      type: 'text/plain',
      title: 'robots.txt',
      description: 'Crawling rules with the terms as Content-Signal and Content-Usage (IETF AIPREF) lines and a License line.',
      kind: 'agent-file',
      catalog: true,
    },
    agentFile({
      path: licenseRoute.path,
      type: licenseRoute.type,
      title: 'Licence (RSL 1.0)',
      description: 'The terms as an RSL 1.0 licence: search and AI input permitted, AI training prohibited, attribution required.',
    }),
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
  path: mcpRoute.path,
  docs: '/docs/api#mcp',
  title: 'MCP server',
  description:
    'Model Context Protocol server (Streamable HTTP, stateless, POST only) with the read-only tools search, fetch, search_posts, get_post and list_posts, and llms.txt and pricing.md as resources.',
} as const;
