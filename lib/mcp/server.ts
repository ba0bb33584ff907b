import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { absoluteUrl } from '../config';
import { publishedPost, site } from '../content';
import { blogList, blogListSchema } from '../feeds/blog-json';
import { llmsTxt } from '../agents/llms';
import { pricingMarkdown } from '../feeds/pricing-md';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, searchPublishedPosts, searchResultsSchema, searchTextSchema } from '../search/site';

const LIST_DEFAULT = 10;
const LIST_MAX = 50;

/** Every tool only reads what the site publishes. */
const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

function json(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * The site's MCP server: tools and resources over the published posts only,
 * the same data as /api/search, /api/blog and the `.md` URLs. Stateless: one
 * is made for each request.
 */
export function createMcpServer(): McpServer {
  const { name, summary } = site();
  const server = new McpServer(
    { name, version: '1.0.0', websiteUrl: absoluteUrl('/') },
    { instructions: `${summary} Search the posts with search_posts, list the newest with list_posts, and read one as markdown with get_post.` },
  );

  server.registerTool(
    'search_posts',
    {
      title: 'Search posts',
      description:
        'Published posts matching every word of the query (titles and tags weigh most; prefixes and small typos match), best first, each with its URLs, the section of its best match (with its anchor URL) and a snippet of its text with the matched words marked.',
      inputSchema: {
        query: searchTextSchema.describe('The words to find.'),
        limit: z.number().int().min(1).max(SEARCH_LIMIT_MAX).optional().describe(`How many results at most (default ${SEARCH_LIMIT_DEFAULT}).`),
      },
      outputSchema: searchResultsSchema.shape,
      annotations: readOnly,
    },
    ({ query, limit }) => json(searchPublishedPosts({ q: query, limit: limit ?? SEARCH_LIMIT_DEFAULT })),
  );

  server.registerTool(
    'get_post',
    {
      title: 'Get a post',
      description: 'One published post as markdown, YAML frontmatter first: the same bytes as its URL plus .md.',
      inputSchema: { slug: z.string().max(200).describe('The post slug, as in /blog/{slug}.') },
      annotations: readOnly,
    },
    ({ slug }): CallToolResult => {
      const post = publishedPost(slug);
      if (!post)
        return { isError: true, content: [{ type: 'text', text: `No published post has the slug "${slug}". list_posts and search_posts give the slugs.` }] };
      return { content: [{ type: 'text', text: post.source }] };
    },
  );

  server.registerTool(
    'list_posts',
    {
      title: 'List posts',
      description: 'The newest published posts, newest first, with their slugs, descriptions, dates, tags and URLs.',
      inputSchema: { limit: z.number().int().min(1).max(LIST_MAX).optional().describe(`How many posts (default ${LIST_DEFAULT}, at most ${LIST_MAX}).`) },
      outputSchema: blogListSchema.shape,
      annotations: readOnly,
    },
    ({ limit }) => json(blogList(limit ?? LIST_DEFAULT)),
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
  return server;
}
