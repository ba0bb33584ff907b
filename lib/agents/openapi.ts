import { z } from 'zod';
import { absoluteUrl } from '../runtime/site';
import { site } from '../content';
import { FORM_BODY_LIMIT, MCP_BODY_LIMIT, paymentsWebhookRoute, STRIPE_EVENT_BODY_LIMIT } from '../routes/manifest';
import { MCP_ALLOW, MCP_TOOLS } from './mcp-names';
import { problemTypes } from '../http/problem';
import { queryParameters } from '../http/query';
import { otherRouteLimits } from '../limits/table';
import { writeRoutes, type AnyWriteRoute } from '../write-routes';
import { problemStatus } from '../write-routes/definition';
import { pageContent, publicEndpoints, type PublicEndpoint } from '../public-endpoints';
import type { Settings } from '../settings';

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

/**
 * A path parameter whose percent-escapes do not decode to UTF-8 is answered before any route, in
 * the form lectern's server gives such a URL (lib/server/unroutable.ts): a problem under /api/,
 * markdown for a .md URL, else the page or its markdown.
 */
function undecodable(path: string) {
  const content = path.startsWith('/api/')
    ? { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }
    : path.endsWith('.md')
      ? { 'text/markdown': { schema: { type: 'string' } } }
      : pageContent;
  return { description: 'The URL has a malformed percent-encoding (it does not decode to UTF-8).', content };
}

/** The 200's body of an entry: its named schema, its JSON Schema, else any object for a JSON type and a string otherwise. */
function body(entry: PublicEndpoint): Record<string, unknown> {
  const given = entry.operation?.body;
  if (given && 'name' in given) return { $ref: `#/components/schemas/${given.name}` };
  if (given) return given.jsonSchema;
  return { type: /json/.test(entry.type) ? 'object' : 'string' };
}

/** The GET of one entry of the public endpoints, from what the entry says of it (lib/public-endpoints.ts). */
function read(entry: PublicEndpoint) {
  const { path, kind } = entry;
  const operation = entry.operation ?? {};
  const summary = kind === 'markdown-twin' ? `Markdown twin of ${entry.page}: ${entry.description}` : entry.description;
  const parameters = [
    ...Object.entries(operation.pathParameters ?? {}).map(([name, { description, pattern }]) => ({
      name,
      in: 'path',
      required: true,
      description,
      schema: { type: 'string', ...(pattern ? { pattern } : {}) },
    })),
    ...(kind === 'page' ? [{ name: 'Accept', in: 'header', required: false, schema: { type: 'string' }, example: 'text/markdown' }] : []),
    ...(operation.query ? queryParameters(operation.query) : []),
  ];
  const ok =
    kind === 'page'
      ? { description: 'The page or its markdown (Vary: Accept).', headers: pageHeaders, content: pageContent }
      : { description: entry.title, headers: readHeaders, content: { [operation.type ?? entry.type]: { schema: body(entry) } } };
  const validated = operation.redirect ? {} : { '200': ok, '304': notModified, '412': preconditionFailed };
  return {
    get: {
      summary,
      ...(operation.description ? { description: operation.description } : {}),
      parameters,
      responses: { ...validated, ...(path.includes('{') ? { '400': undecodable(path) } : {}), ...operation.responses },
    },
  };
}

/** Every read endpoint /openapi.json documents: each file, feed and API of the public list, and the pages with an operation of their own. */
function reads() {
  const documented = publicEndpoints().filter((entry) => entry.kind !== 'page' || entry.operation);
  return Object.fromEntries(documented.map((entry) => [entry.path, read(entry)]));
}

/** The named schemas of the read endpoints' bodies, for components.schemas. */
function bodySchemas() {
  return Object.fromEntries(
    publicEndpoints().flatMap(({ operation }) =>
      operation?.body && 'name' in operation.body ? [[operation.body.name, jsonSchema(operation.body.schema)]] : [],
    ),
  );
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
        '400': problemStatus('The body is not valid: `errors` names each field.'),
        '403': problemStatus('A browser post from another origin.'),
        '405': { description: 'Only POST is allowed.', headers: { Allow: { schema: { type: 'string', const: 'POST' } } } },
        '413': problemStatus(`The body is larger than ${FORM_BODY_LIMIT / 1024} KiB.`),
        '415': problemStatus(route.multipart ? 'The body is neither JSON, urlencoded nor multipart.' : 'The body is neither JSON nor urlencoded.'),
        '429': {
          description: "Over the limit of this route for this client (its address, or a verified agent's identity).",
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, ...limitHeaders },
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
        '500': problemStatus(
          "The site runs without lectern's server (`next start`), so no client address is known; nothing was kept. Run it with `npm start`.",
        ),
        '503': problemStatus('A service the route needs is not configured (payments, IndexNow), or the submission could not be stored; nothing was kept.'),
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
      description: `Rate limited per client IP address (an IPv6 client by its /64): a budget of ${requests} units per ${windowSeconds / 60} minute${windowSeconds === 60 ? '' : 's'}, sliding window. Every request counts, priced by its work: 1 for initialize, tools/list, a resource or any message that reads one small thing; 2 for a post (fetch, get_post); a list 1 plus 1 per 10 posts asked; a search 1 plus 1 per 5 results asked (a 50-result search_posts costs 11). One JSON-RPC message per request (batches are refused). Send \`Accept: application/json, text/event-stream\`. A request with an Origin header other than this site's is refused (403). An unknown slug is a tool result with isError true. An agent that signs its requests (Web Bot Auth, verified by lectern's server) is counted by its identity instead of its address, on a budget of its own (RateLimit-Policy mcpAgent, priced the same).`,
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', description: `One JSON-RPC 2.0 message, at most ${MCP_BODY_LIMIT / 1024} KiB.` } } },
      },
      responses: {
        '200': jsonRpc('The JSON-RPC response.'),
        '202': { description: 'A notification or response: accepted, no body.', headers: limitHeaders },
        '400': jsonRpc('Not a JSON-RPC message, or a batch (a JSON-RPC error).'),
        '403': problemStatus('The Origin header names another site.'),
        '406': jsonRpc('Accept does not list both application/json and text/event-stream.'),
        '413': problemStatus(`The body is larger than ${MCP_BODY_LIMIT / 1024} KiB.`),
        '415': jsonRpc('The body is not application/json.'),
        '429': {
          description: 'Over the limit of this route for this client.',
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' }, ...limitHeaders },
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
        '500': problemStatus("The site runs without lectern's server (`next start`), so no client address is known. Run it with `npm start`."),
        '503': {
          description: 'Too many MCP calls at once on this instance (problem type overloaded): nothing was done; try again after Retry-After.',
          headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      },
    },
    options: { summary: 'The methods /mcp answers.', responses: { '204': { description: 'No body.', headers: allow } } },
    get: { summary: 'Not offered (stateless server).', responses: { '405': notAllowed } },
    delete: { summary: 'Not offered (stateless server).', responses: { '405': notAllowed } },
  };
}

/** /openapi.json: OpenAPI 3.1, from the same zod schemas and limits table the routes use. */
export function openApiDocument(siteSettings: Pick<Settings['site'], 'url'>) {
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
    servers: [{ url: siteSettings.url }],
    externalDocs: { url: absoluteUrl('/docs/api') },
    paths: withOperationIds({
      ...reads(),
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
            '400': problemStatus('The signature does not match the body.'),
            '413': problemStatus(`The event is larger than ${STRIPE_EVENT_BODY_LIMIT / 1024 / 1024} MiB.`),
            '503': problemStatus('Payments are not configured, or the event could not be handled right now (Stripe sends it again).'),
          },
        },
      },
    }),
    components: {
      schemas: {
        Problem: jsonSchema(problemSchema),
        ...bodySchemas(),
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
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'INDEX_NOTIFY_TOKEN' },
        basic: { type: 'http', scheme: 'basic', description: 'POSTMARK_WEBHOOK_AUTH' },
      },
    },
  };
}
