import { McpServer, type CallToolResult, type McpServerOptions } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { absoluteUrl } from '../runtime/site';
import { publishedPost, site, type Post } from '../content';
import { blogList, blogListSchema } from '../feeds/blog-json';
import { llmsTxt } from '../agents/llms';
import { MCP_SERVER_VERSION } from '../agents/mcp-names';
import { pricingMarkdown } from '../feeds/pricing-md';
import { CONNECTOR_SEARCH_LIMIT, LIST_DEFAULT, LIST_MAX } from './cost';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, searchPublishedPosts, searchResultsSchema, searchTextSchema } from '../search/site';

/**
 * How long a 2026-07-28 client, or any cache between (`public`: nothing in them depends on who
 * asks), may keep what the server says of itself: the tools, the resources and `server/discover`
 * change only with a deploy. A resource's text changes when a post goes live, so it is kept for
 * a minute, as the site's own pages are revalidated. 2025-era answers carry no cache fields.
 */
export const MCP_CACHE_HINTS = {
  'server/discover': { ttlMs: 5 * 60_000, cacheScope: 'public' },
  'tools/list': { ttlMs: 5 * 60_000, cacheScope: 'public' },
  'resources/list': { ttlMs: 5 * 60_000, cacheScope: 'public' },
  'resources/read': { ttlMs: 60_000, cacheScope: 'public' },
} as const satisfies McpServerOptions['cacheHints'];

/** Every tool only reads what the site publishes. */
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

type Linked = { url: string; title: string; description?: string };

/** A `resource_link` content item: the canonical URL of what a result is about, for clients that cite or open it. */
function resourceLink({ url, title, description }: Linked): CallToolResult['content'][number] {
  return { type: 'resource_link', uri: url, name: title, ...(description ? { description } : {}), mimeType: 'text/html' };
}

/**
 * A result as JSON text, first (for clients that read only text, and for the connectors that call
 * `search` and `fetch`, which read that item), as structured content, and a `resource_link` to
 * each page it names after it.
 */
function json(value: Record<string, unknown>, links: readonly Linked[]): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }, ...links.map(resourceLink)], structuredContent: value };
}

const postFacts = (post: Post) => ({ slug: post.slug, title: post.title, url: post.url, markdownUrl: post.markdownUrl });

/** What `search` and `fetch` answer (the shapes OpenAI's connectors read: id, title, url; text and metadata). */
const connectorHitSchema = z.object({ id: z.string(), title: z.string(), url: z.url() });
const connectorSearchSchema = z.object({ results: z.array(connectorHitSchema) });
const connectorDocumentSchema = z.object({
  id: z.string(),
  title: z.string(),
  text: z.string(),
  url: z.url(),
  metadata: z.object({ description: z.string(), date: z.string(), updated: z.string().optional(), tags: z.array(z.string()), markdownUrl: z.url() }),
});
const postSchema = z.object({ slug: z.string(), title: z.string(), url: z.url(), markdownUrl: z.url() });

/** A tool that reads one published post, named by its slug in the input field `slug.name`: an unknown slug is an error result naming the tools (`slug.from`) that give slugs. */
function registerPostTool(
  server: McpServer,
  name: string,
  tool: { title: string; description: string; slug: { name: string; description: string; from: string }; output: z.ZodObject },
  answer: (post: Post) => CallToolResult,
): void {
  server.registerTool(
    name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: z.object({ [tool.slug.name]: z.string().max(200).describe(tool.slug.description) }),
      outputSchema: tool.output,
      annotations: readOnly,
    },
    (input): CallToolResult => {
      const slug = String(input[tool.slug.name]);
      const post = publishedPost(slug);
      if (post) return answer(post);
      return { isError: true, content: [{ type: 'text', text: `No published post has the slug "${slug}". ${tool.slug.from} give the slugs.` }] };
    },
  );
}

/**
 * The site's MCP server: tools and resources over the published posts only,
 * the same data as /api/search, /api/blog and the `.md` URLs. Stateless: one
 * is made for each request, so no list can change during a session and none is
 * announced as changing.
 */
export function createMcpServer(): McpServer {
  const { name, summary } = site();
  const server = new McpServer(
    { name, version: MCP_SERVER_VERSION, websiteUrl: absoluteUrl('/') },
    {
      cacheHints: MCP_CACHE_HINTS,
      instructions: `${summary} Search the posts with search (or search_posts for snippets and dates), read one with fetch (its id is the slug) or get_post, and list the newest with list_posts. Every result names the post's canonical URL: cite that.`,
    },
  );

  server.registerTool(
    'search',
    {
      title: 'Search',
      description: `The published posts that best match the query, at most ${CONNECTOR_SEARCH_LIMIT}, each with its id (pass it to fetch), title and URL (with the anchor of the section that matched best).`,
      inputSchema: z.object({ query: searchTextSchema.describe('The words to find.') }),
      outputSchema: connectorSearchSchema,
      annotations: readOnly,
    },
    ({ query }) => {
      const found = searchPublishedPosts({ q: query, limit: CONNECTOR_SEARCH_LIMIT });
      // Each result's URL is where its best match is: the post's canonical URL, with the section's anchor when it has one.
      const results = found.results.map((hit) => ({ id: hit.slug, title: hit.title, url: hit.sectionUrl }));
      return json({ results }, results);
    },
  );

  registerPostTool(
    server,
    'fetch',
    {
      title: 'Fetch a post',
      description: 'One published post by its id (the slug, as search gives it): its markdown text, title, canonical URL and metadata.',
      slug: { name: 'id', description: 'The id from a search result: the post slug.', from: 'search and list_posts' },
      output: connectorDocumentSchema,
    },
    (post) => {
      const document = {
        id: post.slug,
        title: post.title,
        text: post.source,
        url: post.url,
        metadata: {
          description: post.description,
          date: post.date,
          ...(post.updated === undefined ? {} : { updated: post.updated }),
          tags: post.tags,
          markdownUrl: post.markdownUrl,
        },
      };
      return json(document, [document]);
    },
  );

  server.registerTool(
    'search_posts',
    {
      title: 'Search posts',
      description:
        'Published posts matching every word of the query (titles and tags weigh most; prefixes and small typos match), best first, each with its URLs, the section of its best match (with its anchor URL) and a snippet of its text with the matched words marked.',
      inputSchema: z.object({
        query: searchTextSchema.describe('The words to find.'),
        limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional().describe(`How many results at most (default ${SEARCH_LIMIT_DEFAULT}).`),
      }),
      outputSchema: searchResultsSchema,
      annotations: readOnly,
    },
    ({ query, limit }) => {
      const found = searchPublishedPosts({ q: query, limit: limit ?? SEARCH_LIMIT_DEFAULT });
      return json(found, found.results);
    },
  );

  registerPostTool(
    server,
    'get_post',
    {
      title: 'Get a post',
      description: 'One published post as markdown, YAML frontmatter first: the same bytes as its URL plus .md.',
      slug: { name: 'slug', description: 'The post slug, as in /blog/{slug}.', from: 'list_posts and search_posts' },
      output: postSchema,
    },
    // The markdown stays the first (text) item, as before; the URL comes with it.
    (post) => ({ content: [{ type: 'text', text: post.source }, resourceLink(post)], structuredContent: postFacts(post) }),
  );

  server.registerTool(
    'list_posts',
    {
      title: 'List posts',
      description: 'The newest published posts, newest first, with their slugs, descriptions, dates, tags and URLs.',
      inputSchema: z.object({
        limit: z.number().int().min(1).max(LIST_MAX).optional().describe(`How many posts (default ${LIST_DEFAULT}, at most ${LIST_MAX}).`),
      }),
      outputSchema: blogListSchema,
      annotations: readOnly,
    },
    ({ limit }) => {
      const list = blogList(limit ?? LIST_DEFAULT);
      return json(list, list.posts);
    },
  );

  for (const file of [
    { name: 'llms.txt', path: '/llms.txt', description: 'Index of the site for agents (llmstxt.org).', text: llmsTxt },
    { name: 'pricing.md', path: '/pricing.md', description: 'Prices of the training, the digital bundles and the book.', text: pricingMarkdown },
  ]) {
    const uri = absoluteUrl(file.path);
    server.registerResource(file.name, uri, { title: file.name, description: file.description, mimeType: 'text/markdown' }, () => ({
      contents: [{ uri, mimeType: 'text/markdown', text: file.text() }],
    }));
  }
  // The SDK announces list changes whenever tools or resources are registered; a stateless
  // server has no stream to send them on and its lists change only with a deploy.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false } });
  return server;
}
