import type { z } from 'zod';
import { readBody } from '../http/body';
import { declaredCharset, isFormPost, mediaType, multipartFields, parseBody, withQueryFields } from '../http/form-body';
import { fieldErrors, problem, type FieldError, type ProblemType } from '../http/problem';
import { admit, rateLimitHeaders } from '../limits/admission';
import type { WriteRoute } from '../limits/table';
import { describeError } from '../log';
import { FORM_BODY_LIMIT } from '../routes/manifest';
import { platformHeadersOf } from '../http/platform-headers';
import { writeRoutes } from '.';
import { shapeAnswer, type AnswerFacts } from './respond';
import type { WriteResult, WriteRouteDefinition, WriteServices, WriteSettings } from './definition';

/** A browser's cross-site post: an Origin that is not ours, or Sec-Fetch-Site saying so. */
function isCrossSite(request: Request, siteUrl: string): boolean {
  const origin = request.headers.get('origin');
  if (origin !== null) return origin !== new URL(siteUrl).origin;
  return request.headers.get('sec-fetch-site') === 'cross-site';
}

/**
 * The error page's "Go back" link: the page the form was posted from when the Referer names a
 * page of this site (http or https, its origin), as a path; the home page otherwise. A Referer is
 * whatever the client sent: `javascript:` or another site's address never becomes a link.
 */
function backLink(referer: string | null, siteUrl: string): string {
  const site = new URL(siteUrl);
  let url: URL;
  try {
    url = new URL(referer ?? '');
  } catch {
    return '/';
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.origin !== site.origin) return '/';
  // One leading slash: `//host/…` would be another site's address.
  return `${url.pathname.replace(/^\/+/, '/')}${url.search}`;
}

/** The facts that shape every answer to this request (./respond.ts). */
function answerFacts(request: Request, headers: Record<string, string>, settings: WriteSettings): AnswerFacts {
  const form = isFormPost(request);
  return {
    form,
    page: form && (request.headers.get('accept') ?? '').includes('text/html'),
    back: backLink(request.headers.get('referer'), settings.site.url),
    headers,
    platformHeaders: (contentType) => platformHeadersOf(request, contentType, settings),
  };
}

/**
 * The handlers of one write route, its file under app/api/ being this one call.
 * In this order: method (405), the client address (500 when none can be
 * believed), limit (429, every request counts), origin (403), authorization,
 * content type (415), size (413, while reading), parse (400), validation (400
 * with errors), honeypot, then the route's action. `services` and `writeSettings` give the
 * services and the settings groups of each request (the limiter's, and the action's in its
 * context), asked for only when a request comes.
 */
export function handlersFor<Name extends WriteRoute, Schema extends z.ZodType>(
  route: WriteRouteDefinition<Name, Schema>,
  services: () => WriteServices,
  writeSettings: () => WriteSettings,
) {
  const queryFields = route.queryFields?.map((field) => field.name) ?? [];
  const respond = (request: Request, result: WriteResult, headers: Record<string, string>) =>
    shapeAnswer(result, answerFacts(request, headers, writeSettings()));

  const notAllowed = (request: Request) =>
    respond(
      request,
      { ok: false, problem: 'method-not-allowed', detail: `${route.path} accepts POST only.` },
      { Allow: 'POST', ...rateLimitHeaders(route.name) },
    );

  async function POST(request: Request): Promise<Response> {
    const admission = await admit(request, route.name, services().limiter, writeSettings().deployment);
    if (!admission.ok) return respond(request, { ok: false, ...admission.refusal }, admission.headers);
    const { client, headers } = admission;
    const fail = (problemType: ProblemType, detail: string, errors?: FieldError[]) =>
      respond(request, { ok: false, problem: problemType, detail, errors }, headers);

    if (isCrossSite(request, writeSettings().site.url)) return fail('forbidden-origin', 'Posts to this site must come from its own pages.');
    const refused = route.authorize?.check(request, writeSettings());
    if (refused) return respond(request, refused, headers);

    const type = mediaType(request);
    if (type === undefined && route.optionalBody) {
      const bytes = await readBody(request, FORM_BODY_LIMIT);
      if (bytes !== 'too-large' && bytes.byteLength === 0) return run({}, headers, request, client);
    }
    const multipart = route.multipart === true && type === 'multipart/form-data';
    if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded' && !multipart) {
      return fail(
        'unsupported-media-type',
        `Send the body as application/json${route.multipart ? ', application/x-www-form-urlencoded or multipart/form-data' : ' or application/x-www-form-urlencoded'}.`,
      );
    }
    const charset = declaredCharset(request);
    if (charset && charset !== 'utf-8' && charset !== 'utf8') return fail('unsupported-media-type', 'Send the body in UTF-8.');

    const bytes = await readBody(request, FORM_BODY_LIMIT);
    if (bytes === 'too-large') return fail('payload-too-large', `The body is larger than ${FORM_BODY_LIMIT / 1024} KiB.`);
    const parsed =
      bytes.byteLength === 0 && route.optionalBody
        ? ({ ok: true, value: {} } as const)
        : multipart
          ? await multipartFields(bytes, request.headers.get('content-type') ?? '')
          : parseBody(bytes, type);
    if (!parsed.ok) return fail('invalid-body', parsed.detail);
    return run(parsed.value, headers, request, client);
  }

  async function run(value: unknown, headers: Record<string, string>, request: Request, client: string): Promise<Response> {
    const input = route.schema.safeParse(withQueryFields(value, request, queryFields));
    if (!input.success) {
      const errors = fieldErrors(input.error, '(body)');
      return respond(request, { ok: false, problem: 'invalid-input', detail: `Check ${errors.map((error) => error.path).join(', ')}.`, errors }, headers);
    }
    const data = input.data as z.output<Schema>;
    if (route.honeypot && (data as { website?: string }).website) return respond(request, route.honeypot(data), headers);
    let result: WriteResult;
    try {
      result = await route.action(data, { request, client, form: isFormPost(request), services: services(), settings: writeSettings() });
    } catch (error) {
      // Nothing was answered 2xx, so nothing is lost: the sender is told to try again.
      console.error(`${route.path}: ${describeError(error)}`);
      return respond(
        request,
        { ok: false, problem: 'service-unavailable', detail: 'The request could not be saved right now and nothing was kept. Please try again in a minute.' },
        { ...headers, 'Retry-After': '60' },
      );
    }
    return respond(request, result, headers);
  }

  return { POST, GET: route.get ?? notAllowed, PUT: notAllowed, PATCH: notAllowed, DELETE: notAllowed };
}

const METHODS = ['POST', 'GET', 'PUT', 'PATCH', 'DELETE'] as const;
type Handlers = Record<(typeof METHODS)[number], (request: Request) => Response | Promise<Response>>;

/**
 * The handlers of app/api/[...path]/route.ts: every write route of the registry at its own
 * path, and a 404 for any other path under /api/ that no route file of its own answers.
 * OPTIONS answers as Next answers it for a route file with these methods.
 */
export function writeRouteHandlers(services: () => WriteServices, writeSettings: () => WriteSettings): Handlers & { OPTIONS: (request: Request) => Response } {
  // Each route's own schema types its action; here they are one list, so the definition is taken as the general one.
  const byPath = new Map<string, Handlers>(
    writeRoutes.map((route) => [route.path, handlersFor(route as WriteRouteDefinition<WriteRoute>, services, writeSettings)]),
  );
  const at = (request: Request) => byPath.get(new URL(request.url).pathname);
  const noRoute = (request: Request) =>
    problem('not-found', 'No endpoint answers at this path: /openapi.json lists them.', {
      headers: platformHeadersOf(request, 'application/problem+json', writeSettings()),
      cache: 'error',
    });
  const dispatch = (method: keyof Handlers) => (request: Request) => (at(request)?.[method] ?? noRoute)(request);
  const allow = ['OPTIONS', 'HEAD', ...METHODS].sort().join(', ');
  return {
    POST: dispatch('POST'),
    GET: dispatch('GET'),
    PUT: dispatch('PUT'),
    PATCH: dispatch('PATCH'),
    DELETE: dispatch('DELETE'),
    OPTIONS: (request) => (at(request) ? new Response(null, { status: 204, headers: { Allow: allow } }) : noRoute(request)),
  };
}
