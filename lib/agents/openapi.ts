import { z } from 'zod';
import { absoluteUrl } from '../config';
import { site } from '../content';
import { blogListSchema } from '../feeds/blog-json';
import { FEED_ITEM_COUNT, feedTypes, jsonFeedSchema } from '../feeds/feeds';
import { FORM_BODY_LIMIT, MCP_BODY_LIMIT, paymentsWebhookRoute, STRIPE_EVENT_BODY_LIMIT } from '../routes/manifest';
import { MCP_ALLOW, MCP_SERVER_CARD_PATH, MCP_TOOLS } from './mcp-names';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX_LENGTH, SEARCH_WORDS_MAX, searchResultsSchema } from '../search/site';
import { problemTypes } from '../http/problem';
import { otherRouteLimits } from '../limits/table';
import { writeRoutes, type AnyWriteRoute } from '../write-routes';
import { API_CATALOG_TYPE, publicEndpoints } from '../public-endpoints';
import { settings } from '../settings';

/** RFC 9457 problem details, as every /api/* error is sent. */
export const problemSchema = z.object({
  type: z.url(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a zod schema, as the client must send it. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete generated.$schema;
  return generated;
}

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});
const text = (type: string, description: string) => ({ description, content: { [type]: { schema: { type: 'string' } } } });
const slugParam = (what: string) => ({
  name: 'slug',
  in: 'path',
  required: true,
  description: `The ${what} slug.`,
  schema: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' },
});
const readHeaders = {
  ETag: { $ref: '#/components/headers/ETag' },
  'Last-Modified': { $ref: '#/components/headers/LastModified' },
  'Cache-Control': { $ref: '#/components/headers/CacheControl' },
  'Access-Control-Allow-Origin': { $ref: '#/components/headers/AccessControlAllowOrigin' },
};
/** An HTML page sends no Last-Modified (Next renders it); its markdown variant does. */
const pageHeaders = {
  ...readHeaders,
  'Last-Modified': { description: 'When the post last changed: sent with the markdown variant only.', schema: { type: 'string' } },
};
const notModified = {
  description: 'Not modified: If-None-Match names the ETag of the representation that would be sent (each encoding has its own).',
  headers: { ETag: readHeaders.ETag },
};
const preconditionFailed = {
  description: 'If-Match names no ETag of this representation (or If-Unmodified-Since is before Last-Modified).',
  headers: { ETag: readHeaders.ETag },
};
/** A path parameter whose percent-escapes do not decode to UTF-8: answered before any route, in the form the URL asks for. */
const undecodable = (content: Record<string, unknown>) => ({ description: 'The URL has a malformed percent-encoding (it does not decode to UTF-8).', content });
const undecodableProblem = undecodable({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
const undecodableMarkdown = undecodable({ 'text/markdown': { schema: { type: 'string' } } });
const undecodablePage = undecodable({ 'text/html': { schema: { type: 'string' } }, 'text/markdown': { schema: { type: 'string' } } });

/**
 * Each fixed file of the one list of public endpoints as a 200 of its media
 * type; a path with more to say (parameters, schemas, other statuses) is
 * written out below and replaces its entry here.
 */
function plainReads() {
  const files = publicEndpoints().filter((entry) => entry.kind !== 'page' && !entry.path.includes('{'));
  return Object.fromEntries(
    files.map((entry) => [
      entry.path,
      read(entry.kind === 'markdown-twin' ? `Markdown twin of a page: ${entry.description}` : entry.description, text(entry.type, entry.title)),
    ]),
  );
}

function read(summary: string, ok: Record<string, unknown>, extra: Record<string, unknown> = {}, parameters: unknown[] = [], headers: object = readHeaders) {
  return {
    get: { summary, parameters, responses: { '200': { ...ok, headers }, '304': notModified, '412': preconditionFailed, ...extra } },
  };
}

/** A camel-case name for each operation from its method and path: GET /blog/{slug}.md is getBlogBySlugMd. */
function operationId(method: string, path: string): string {
  const words = path
    .split(/[/.\-_]+/)
    .filter(Boolean)
    .map((word) => (word.startsWith('{') ? `By${word.slice(1, 2).toUpperCase()}${word.slice(2, -1)}` : `${word[0]?.toUpperCase()}${word.slice(1)}`));
  return `${method}${words.join('') || 'Root'}`;
}

/** Every operation with its operationId. */
function withOperationIds<T extends Record<string, Record<string, object>>>(paths: T): T {
  return Object.fromEntries(
    Object.entries(paths).map(([path, operations]) => [
      path,
      Object.fromEntries(Object.entries(operations).map(([method, operation]) => [method, { operationId: operationId(method, path), ...operation }])),
    ]),
  ) as T;
}

/** The name of a write route's request schema under components.schemas. */
const requestSchemaName = (route: AnyWriteRoute) => `${route.name[0]?.toUpperCase()}${route.name.slice(1)}Request`;

/** A write route's operation, from its definition in lib/write-routes: every status every write route can answer, then its own. */
function write(route: AnyWriteRoute) {
  const { requests, windowSeconds } = route.limit;
  const schema = { $ref: `#/components/schemas/${requestSchemaName(route)}` };
  const limitHeaders = { RateLimit: { $ref: '#/components/headers/RateLimit' }, 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' } };
  const content = {
    'application/json': { schema },
    ...(route.jsonOnly ? {} : { 'application/x-www-form-urlencoded': { schema } }),
    ...(route.multipart ? { 'multipart/form-data': { schema } } : {}),
  };
  return {
    post: {
      summary: route.summary,
      description: `Rate limited per client IP address: ${requests} requests per ${windowSeconds / 60} minutes, sliding window. Every request counts, refused ones too.`,
      ...(route.authorize ? { security: [route.authorize.security] } : {}),
      ...(route.queryFields
        ? {
            parameters: route.queryFields.map((field) => ({
              name: field.name,
              in: 'query',
              required: false,
              description: field.description,
              schema: { type: 'string', pattern: field.pattern },
            })),
          }
        : {}),
      requestBody: { required: !route.optionalBody, content },
      responses: {
        '200': { description: 'Done.', headers: limitHeaders, content: { 'application/json': { schema: { type: 'object' } } } },
        '202': { description: 'Accepted and stored; mail follows.', headers: limitHeaders, content: { 'application/json': { schema: { type: 'object' } } } },
        '303': {
          description: 'Form posts (urlencoded) are redirected to a result page.',
          headers: { Location: { required: true, schema: { type: 'string' } }, ...limitHeaders },
        },
        '400': problemResponse('The body is not valid: `errors` names each field.'),
        '403': problemResponse('A browser post from another origin.'),
        '405': { description: 'Only POST is allowed.', headers: { Allow: { schema: { type: 'string', const: 'POST' } } } },
        '413': problemResponse(`The body is larger than ${FORM_BODY_LIMIT / 1024} KiB.`),
        '415': problemResponse(route.multipart ? 'The body is neither JSON, urlencoded nor multipart.' : 'The body is neither JSON nor urlencoded.'),
        '429': {
          description: 'Over the limit of this route for this client.',
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, ...limitHeaders },
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
        '500': problemResponse(
          "The site runs without lectern's server (`next start`), so no client address is known; nothing was kept. Run it with `npm start`.",
        ),
        '503': problemResponse('A service the route needs is not configured (payments, IndexNow), or the submission could not be stored; nothing was kept.'),
        ...route.responses,
      },
    },
  };
}

/** POST /mcp: limited like a write route, answered by the MCP transport (JSON-RPC 2.0 bodies). */
function mcp() {
  const { requests, windowSeconds } = otherRouteLimits.mcp;
  const limitHeaders = { RateLimit: { $ref: '#/components/headers/RateLimit' }, 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' } };
  const jsonRpc = (description: string) => ({ description, headers: limitHeaders, content: { 'application/json': { schema: { type: 'object' } } } });
  const allow = { Allow: { required: true, schema: { type: 'string', const: MCP_ALLOW } } };
  const notAllowed = {
    description: 'A stateless server offers no stream to GET and no session to DELETE.',
    headers: allow,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
  return {
    post: {
      summary: `Model Context Protocol server (Streamable HTTP, stateless, JSON responses). Read-only tools: ${MCP_TOOLS.join(', ')}; resources: llms.txt and pricing.md.`,
      description: `Rate limited per client IP address, as a flood guard only (every call reads): ${requests} requests per ${windowSeconds / 60} minute${windowSeconds === 60 ? '' : 's'}, sliding window. Every request counts. One JSON-RPC message per request (batches are refused). Send \`Accept: application/json, text/event-stream\`. A request with an Origin header other than this site's is refused (403). An unknown slug is a tool result with isError true.`,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', description: `One JSON-RPC 2.0 message, at most ${MCP_BODY_LIMIT / 1024} KiB.` } } },
      },
      responses: {
        '200': jsonRpc('The JSON-RPC response.'),
        '202': { description: 'A notification or response: accepted, no body.', headers: limitHeaders },
        '400': jsonRpc('Not a JSON-RPC message, or a batch (a JSON-RPC error).'),
        '403': problemResponse('The Origin header names another site.'),
        '406': jsonRpc('Accept does not list both application/json and text/event-stream.'),
        '413': problemResponse(`The body is larger than ${MCP_BODY_LIMIT / 1024} KiB.`),
        '415': jsonRpc('The body is not application/json.'),
        '429': {
          description: 'Over the limit of this route for this client.',
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, ...limitHeaders },
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
        '500': problemResponse("The site runs without lectern's server (`next start`), so no client address is known. Run it with `npm start`."),
      },
    },
    options: { summary: 'The methods /mcp answers.', responses: { '204': { description: 'No body.', headers: allow } } },
    get: { summary: 'Not offered (stateless server).', responses: { '405': notAllowed } },
    delete: { summary: 'Not offered (stateless server).', responses: { '405': notAllowed } },
  };
}

/** /openapi.json: OpenAPI 3.1, from the same zod schemas and limits table the routes use. */
export function openApiDocument() {
  const { name, summary } = site();
  const requestSchemas = Object.fromEntries(writeRoutes.map((route) => [requestSchemaName(route), jsonSchema(route.schema, 'input')]));
  return {
    openapi: '3.1.0',
    info: {
      title: `${name} API`,
      version: '1.0.0',
      summary,
      description: `Read endpoints and agent files are anonymous, GET and HEAD, never rate limited, with ETag and 304 on If-None-Match. Errors are RFC 9457 problem details; problem types: ${Object.keys(problemTypes).join(', ')}.`,
    },
    servers: [{ url: settings().site.url }],
    externalDocs: { url: absoluteUrl('/docs/api') },
    paths: withOperationIds({
      ...plainReads(),
      '/api/blog': read(
        'Every published post, newest first.',
        { description: 'The post list.', content: { 'application/json': { schema: { $ref: '#/components/schemas/BlogList' } } } },
        { '400': problemResponse('`limit` is not a positive integer, or is repeated.') },
        [
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Return at most this many posts (a positive integer; above the count returns all).',
            schema: { type: 'string', pattern: '^[0-9]*[1-9][0-9]*$' },
          },
        ],
      ),
      '/api/search': {
        get: {
          summary:
            'Published posts matching every word of q, best first (title and tags weigh most; prefixes and small typos match), each with the section of its best match and a plain-text snippet with the matched words given as offsets.',
          description: 'Answered per query (never rate limited); cacheable like every read.',
          parameters: [
            {
              name: 'q',
              in: 'query',
              required: true,
              description: `The words to find: 1 to ${SEARCH_QUERY_MAX_LENGTH} characters once trimmed, given once, with at most ${SEARCH_WORDS_MAX} different words (repeated words and common ones such as "the" are not counted).`,
              schema: { type: 'string', minLength: 1, maxLength: SEARCH_QUERY_MAX_LENGTH },
            },
            {
              name: 'limit',
              in: 'query',
              required: false,
              description: `How many results at most: an integer from 1 to ${SEARCH_LIMIT_MAX} (default ${SEARCH_LIMIT_DEFAULT}).`,
              schema: { type: 'string', pattern: '^[0-9]+$' },
            },
          ],
          responses: {
            '200': {
              description: 'The matching posts.',
              headers: {
                ETag: readHeaders.ETag,
                'Last-Modified': readHeaders['Last-Modified'],
                'Cache-Control': readHeaders['Cache-Control'],
                'Access-Control-Allow-Origin': readHeaders['Access-Control-Allow-Origin'],
              },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/SearchResults' } } },
            },
            '304': notModified,
            '400': problemResponse(
              '`q` is missing, empty, longer than allowed, has too many different words or is repeated, or `limit` is not an integer in range; `errors` names the parameter.',
            ),
            '412': preconditionFailed,
          },
        },
      },
      '/api/blog/{slug}/markdown': read(
        'A post as markdown, YAML frontmatter first.',
        text('text/markdown', 'The post source.'),
        { '400': undecodableProblem, '404': problemResponse('No published post has this slug.') },
        [slugParam('post')],
      ),
      '/blog/{slug}.md': read(
        'The same markdown at the post URL plus .md.',
        text('text/markdown', 'The post source.'),
        { '400': undecodableMarkdown, '404': text('text/markdown', 'Not found.') },
        [slugParam('post')],
      ),
      '/blog/{slug}': read(
        'The post page; markdown when Accept ranks text/markdown above text/html.',
        {
          description: 'The page or its markdown (Vary: Accept).',
          content: { 'text/html': { schema: { type: 'string' } }, 'text/markdown': { schema: { type: 'string' } } },
        },
        {
          '400': undecodablePage,
          '404': {
            description: 'Not found (HTML, or markdown when negotiated).',
            content: { 'text/html': { schema: { type: 'string' } }, 'text/markdown': { schema: { type: 'string' } } },
          },
        },
        [slugParam('post'), { name: 'Accept', in: 'header', required: false, schema: { type: 'string' }, example: 'text/markdown' }],
        pageHeaders,
      ),
      '/feed.json': read(`JSON Feed 1.1 of the newest ${FEED_ITEM_COUNT} posts, full HTML in content_html.`, {
        description: 'The feed.',
        content: { [feedTypes.json]: { schema: { $ref: '#/components/schemas/JsonFeed' } } },
      }),
      '/tags/{tag}/rss.xml': read(
        `RSS 2.0 feed of the newest ${FEED_ITEM_COUNT} posts with one tag.`,
        text(feedTypes.rss, 'The feed.'),
        { '400': undecodablePage, '404': text('text/html', 'No published post has this tag (the HTML 404 page).') },
        [{ name: 'tag', in: 'path', required: true, description: 'The tag as its page URL spells it (/tags/{tag}).', schema: { type: 'string' } }],
      ),
      '/api/apps/{slug}/download': {
        get: {
          summary: 'Redirect to the current build of a desktop app.',
          parameters: [slugParam('app')],
          responses: {
            '302': { description: 'The current build.', headers: { Location: { required: true, schema: { type: 'string', format: 'uri' } } } },
            '400': undecodableProblem,
            '404': problemResponse('No app has this slug.'),
          },
        },
      },
      '/tags/{tag}.md': read(
        'Markdown twin of a tag page: its posts, newest first, linked to their markdown. The tag page itself answers the same to an Accept header that ranks text/markdown first.',
        text('text/markdown', 'The tag page.'),
        { '400': undecodableMarkdown, '404': text('text/markdown', 'No published post has this tag.') },
        [{ name: 'tag', in: 'path', required: true, description: 'The tag slug, as in the tag page URL.', schema: { type: 'string' } }],
      ),
      [MCP_SERVER_CARD_PATH]: read('MCP server card (draft SEP-2127): the MCP server, its endpoint and what it offers.', {
        description: 'The server card.',
        content: {
          'application/json': {
            schema: {
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
            },
          },
        },
      }),
      '/openapi.json': read('This document.', { description: 'OpenAPI 3.1.', content: { 'application/json': { schema: { type: 'object' } } } }),
      '/.well-known/api-catalog': read('RFC 9727 API catalog.', {
        description: 'The linkset.',
        content: { [API_CATALOG_TYPE]: { schema: { type: 'object' } } },
      }),
      ...Object.fromEntries(writeRoutes.map((route) => [route.path, write(route)])),
      [otherRouteLimits.mcp.path]: mcp(),
      [paymentsWebhookRoute.path]: {
        post: {
          summary:
            "Stripe's webhook: records paid checkouts (once per event id), refunds a training payment whose session is full by the time it arrives, and releases expired seat holds.",
          description: 'Authenticated by the Stripe-Signature header over the raw body; not rate limited.',
          parameters: [{ name: 'Stripe-Signature', in: 'header', required: true, schema: { type: 'string' } }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: {
            '200': {
              description: 'Received.',
              content: { 'application/json': { schema: { type: 'object', properties: { received: { type: 'boolean' }, outcome: { type: 'string' } } } } },
            },
            '400': problemResponse('The signature does not match the body.'),
            '413': problemResponse(`The event is larger than ${STRIPE_EVENT_BODY_LIMIT / 1024 / 1024} MiB.`),
            '503': problemResponse('Payments are not configured, or the event could not be handled right now (Stripe sends it again).'),
          },
        },
      },
    }),
    components: {
      schemas: {
        Problem: jsonSchema(problemSchema),
        BlogList: jsonSchema(blogListSchema),
        JsonFeed: jsonSchema(jsonFeedSchema),
        SearchResults: jsonSchema(searchResultsSchema),
        ...requestSchemas,
      },
      headers: {
        ETag: { description: 'Strong validator of the representation (each encoding has its own).', required: true, schema: { type: 'string' } },
        LastModified: { description: 'When the content last changed.', required: true, schema: { type: 'string' } },
        CacheControl: { description: 'How long shared caches may keep the response.', required: true, schema: { type: 'string' } },
        AccessControlAllowOrigin: { description: 'Always *: reads are public.', required: true, schema: { type: 'string', const: '*' } },
        RetryAfter: { description: 'Whole seconds until a request to this route would pass.', required: true, schema: { type: 'integer', minimum: 1 } },
        RateLimit: { description: 'IETF RateLimit header: remaining quota and seconds to reset.', required: true, schema: { type: 'string' } },
        RateLimitPolicy: { description: 'IETF RateLimit-Policy header: the quota and window of this route.', required: true, schema: { type: 'string' } },
      },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'INDEX_NOTIFY_TOKEN' } },
    },
  };
}
