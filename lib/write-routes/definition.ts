import type { z } from 'zod';
import type { FieldError, ProblemType } from '../http/problem';
import type { WriteRouteAddress } from '../routes/manifest';
import type { Services } from '../runtime';
import type { Settings } from '../settings';

/**
 * What a route's action answers: a result, or a problem. A form post is sent
 * to `redirect` (303) on success; without one it gets the status and body.
 */
export type WriteResult =
  | { ok: true; status: 200 | 202; body: Record<string, unknown>; redirect?: string }
  | { ok: false; problem: ProblemType; detail: string; errors?: FieldError[]; headers?: Record<string, string> };

/** The services a write route uses, made by the entry point (lib/services) and handed to the shared handler. */
export type WriteServices = Pick<Services, 'store' | 'limiter' | 'payments' | 'mail'>;

/** The settings groups the write routes read, handed to the shared handler by the entry point. */
export type WriteSettings = Pick<Settings, 'site' | 'deployment' | 'mail' | 'downloads' | 'bounces' | 'indexNow' | 'bookings'>;

/** What an action gets besides its input: the request, the client's address, whether a form sent it, the services and the settings. */
export type WriteContext = { request: Request; client: string; form: boolean; services: WriteServices; settings: WriteSettings };

/** One response of an OpenAPI operation, as /openapi.json lists it. */
export type OpenApiResponse = { description: string; content?: Record<string, unknown>; headers?: Record<string, unknown> };

/** What the shared handler (./front-door.ts) does with a request to the route. */
export type WriteRouteHandling<Schema extends z.ZodType = z.ZodType> = {
  /** The request body, validated before the action runs and described in /openapi.json. */
  schema: Schema;
  /**
   * The answer to a filled honeypot (`website`): what a real success would
   * look like, with nothing done. Every route whose schema has the field gives one.
   */
  honeypot?: (input: z.output<Schema>) => WriteResult;
  action: (input: z.output<Schema>, context: WriteContext) => Promise<WriteResult>;
  /** Checked after the limit and before the body is read (bearer tokens); also named in /openapi.json. */
  authorize?: { check: (request: Request, settings: WriteSettings) => WriteResult | undefined; security: Record<string, string[]> };
  /** A body may be absent (then `{}` is validated). */
  optionalBody?: boolean;
  /** Fields that may also come from the query string (a link's own parameters); one given in both places is refused. */
  queryFields?: readonly { name: string; description: string; pattern: string }[];
  /** Also accepts multipart/form-data (text fields only), as some mail providers send one-click unsubscribes. */
  multipart?: boolean;
  /** Answers GET instead of 405 (a link opened in a browser). */
  get?: (request: Request) => Response;
};

/** How /openapi.json and the docs page describe the route. */
export type WriteRouteDocs = {
  summary: string;
  /** Statuses only this route answers, beside those every write route can (400, 403, 405, 413, 415, 429, 500, 503). */
  responses?: Record<string, OpenApiResponse>;
  /** Documented for JSON only (it still reads a urlencoded body): for programs, not forms. */
  jsonOnly?: boolean;
};

/**
 * Everything about one write route, in one place: the shared handler, the
 * limiter, the RateLimit-Policy header, /openapi.json and the docs page all
 * read it from the registry (./registry.ts).
 */
export type WriteRouteDefinition<Name extends string = string, Schema extends z.ZodType = z.ZodType> = WriteRouteAddress<Name> &
  WriteRouteHandling<Schema> &
  WriteRouteDocs;

/** One write route from its three parts, keeping its literal name and its schema's type. */
export function defineWriteRoute<const Name extends string, Schema extends z.ZodType>(parts: {
  route: WriteRouteAddress<Name>;
  handle: WriteRouteHandling<Schema>;
  docs: WriteRouteDocs;
}): WriteRouteDefinition<Name, Schema> {
  return { ...parts.route, ...parts.handle, ...parts.docs };
}

/** A problem+json response of one status, for a route's `responses`. */
export function problemStatus(description: string, headers?: Record<string, unknown>): OpenApiResponse {
  return { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } }, ...(headers ? { headers } : {}) };
}
