import type { z } from 'zod';
import { config } from '../config';
import { deployment } from '../deploy';
import { describeError } from '../log';
import type { LimitDecision } from '../limits';
import { routeLimits, type LimitedRoute, type WriteRoute } from '../limits/table';
import { limiter } from '../services';
import { platformHeadersFor } from '../server/platform-headers';
import { FORM_BODY_LIMIT, readBody } from '../http/body';
import { cacheHeaders } from '../http/cache';
import { clientAddress, limitKey } from '../http/client-ip';
import { messagePage } from '../http/html';
import { fieldErrors, problem, problemTypes, type FieldError, type ProblemType } from '../http/problem';
import { writeRoutes } from '.';
import type { WriteResult, WriteRouteDefinition } from './route';

function rateLimitHeaders(route: LimitedRoute, decision?: LimitDecision): Record<string, string> {
  const { requests, windowSeconds } = routeLimits[route];
  const window = decision?.windowSeconds ?? windowSeconds;
  const headers: Record<string, string> = { 'RateLimit-Policy': `"${route}";q=${requests};w=${Math.round(window)}` };
  if (decision) headers.RateLimit = `"${route}";r=${decision.remaining};t=${decision.resetSeconds}`;
  return headers;
}

function mediaType(request: Request): string | undefined {
  return request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function isFormPost(request: Request): boolean {
  return mediaType(request) === 'application/x-www-form-urlencoded';
}

/** Form fields as an object; an empty field counts as not sent, a repeated one stays a list (and fails validation). */
function formFields(text: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (value === '') continue;
    const existing = fields[key];
    fields[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return fields;
}

/** A multipart/form-data body's text fields, by the same rules as a urlencoded one; a file is refused. */
async function multipartFields(bytes: Uint8Array, contentType: string): Promise<{ ok: true; value: unknown } | { ok: false; detail: string }> {
  let data: FormData;
  try {
    data = await new Response(bytes as BodyInit, { headers: { 'Content-Type': contentType } }).formData();
  } catch {
    return { ok: false, detail: 'The multipart body cannot be parsed.' };
  }
  const fields: Record<string, unknown> = {};
  for (const [key, value] of data) {
    if (typeof value !== 'string') return { ok: false, detail: `The field ${key} is a file; only text fields are accepted.` };
    if (value === '') continue;
    const existing = fields[key];
    fields[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return { ok: true, value: fields };
}

/** Adds the allowed query parameters to the body's fields; a field sent in both places fails validation as a list. */
function withQueryFields(value: unknown, request: Request, names: readonly string[]): unknown {
  if (names.length === 0 || typeof value !== 'object' || value === null) return value;
  const fields = { ...(value as Record<string, unknown>) };
  const query = new URL(request.url).searchParams;
  for (const name of names) {
    const given = query.getAll(name).filter((entry) => entry !== '');
    if (given.length === 0) continue;
    const existing = fields[name];
    const all = [...(existing === undefined ? [] : [existing]), ...given];
    fields[name] = all.length === 1 ? all[0] : all;
  }
  return fields;
}

function parse(bytes: Uint8Array, type: string): { ok: true; value: unknown } | { ok: false; detail: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, detail: 'The body is not valid UTF-8.' };
  }
  if (type === 'application/x-www-form-urlencoded') return { ok: true, value: formFields(text) };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, detail: 'The JSON body must be an object.' };
    return { ok: true, value };
  } catch {
    return { ok: false, detail: 'The body is not valid JSON.' };
  }
}

/** A browser's cross-site post: an Origin that is not ours, or Sec-Fetch-Site saying so. */
function isCrossSite(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (origin !== null) return origin !== new URL(config().siteUrl).origin;
  return request.headers.get('sec-fetch-site') === 'cross-site';
}

/**
 * Turns a result into a response: JSON for programs; for form posts made
 * without JavaScript, 303 to a result page on success and a readable page on failure.
 */
function respond(request: Request, result: WriteResult, headers: Record<string, string>): Response {
  const form = isFormPost(request) && (request.headers.get('accept') ?? '').includes('text/html');
  const type = result.ok ? 'application/json' : form ? 'text/html' : 'application/problem+json';
  const all = { ...cacheHeaders('write'), ...headers, ...(result.ok ? {} : result.headers), ...platformHeadersOf(request, type) };
  if (result.ok) {
    if (isFormPost(request) && result.redirect) return new Response(null, { status: 303, headers: { ...all, Location: result.redirect } });
    return new Response(JSON.stringify(result.body), { status: result.status, headers: { ...all, 'Content-Type': 'application/json; charset=utf-8' } });
  }
  if (form) {
    const { status, title } = problemTypes[result.problem];
    const page = messagePage({
      title,
      paragraphs: [result.detail],
      list: result.errors?.map((error) => `${error.path}: ${error.message}`),
      back: request.headers.get('referer') ?? '/',
    });
    return new Response(page, { status, headers: { ...all, 'Content-Type': 'text/html; charset=utf-8' } });
  }
  return problem(result.problem, result.detail, { errors: result.errors, headers: all, cache: 'write' });
}

/**
 * Without lectern's server (PLATFORM_MODE), the security headers it would add;
 * proxy.ts does not see the write routes (nor /mcp), whose bodies they read themselves.
 */
export function platformHeadersOf(request: Request, contentType: string): Record<string, string> {
  const settings = deployment();
  if (!settings.platform) return {};
  return platformHeadersFor(contentType, {
    siteUrl: config().siteUrl,
    trustProxy: settings.trustProxy,
    forwardedProto: request.headers.get('x-forwarded-proto'),
  });
}

let warnedNoClientAddress = false;

/** A refusal made before anything else is looked at, with the headers every answer of the route carries. */
export type Admission =
  { ok: true; client: string; headers: Record<string, string> } | { ok: false; refusal: Extract<WriteResult, { ok: false }>; headers: Record<string, string> };

/**
 * The first two steps of every limited route: the client address (lib/http/client-ip.ts),
 * then the limit (every request counts). With no address that can be believed
 * (no lectern server in front, and nothing declared for the platform) a shared
 * or client-chosen limit key would be no limit at all, so nothing is done; that
 * is logged once per process.
 */
export async function admit(request: Request, route: LimitedRoute): Promise<Admission> {
  const address = clientAddress(request.headers, deployment());
  if (!address) {
    if (!warnedNoClientAddress) {
      warnedNoClientAddress = true;
      console.error(
        "posts refused: no client address can be believed; run the site with `npm start` (lectern's server), or without it set CLIENT_IP_HEADER (the header your platform's edge overwrites with the client address) or TRUST_PROXY",
      );
    }
    return {
      ok: false,
      refusal: {
        ok: false,
        problem: 'not-served-by-lectern',
        detail:
          "This site takes posts only when it knows each client's address for the rate limits: run it with `npm start` (lectern's server), or, on a host that runs Next.js itself, set CLIENT_IP_HEADER to the header the host's edge overwrites with the client address (or TRUST_PROXY to the number of proxies in front). Nothing was kept.",
      },
      headers: rateLimitHeaders(route),
    };
  }
  const client = limitKey(address);
  const decision = await limiter().check(route, client);
  const headers = rateLimitHeaders(route, decision);
  if (decision.allowed) return { ok: true, client, headers };
  const wait = decision.retryAfterSeconds;
  return {
    ok: false,
    refusal: {
      ok: false,
      problem: 'rate-limited',
      detail: `Too many requests from your address. Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
      headers: { 'Retry-After': String(wait) },
    },
    headers,
  };
}

/**
 * The handlers of one write route, its file under app/api/ being this one call.
 * In this order: method (405), the client address (500 when none can be
 * believed), limit (429, every request counts), origin (403), authorization,
 * content type (415), size (413, while reading), parse (400), validation (400
 * with errors), honeypot, then the route's action.
 */
export function handlersFor<Name extends WriteRoute, Schema extends z.ZodType>(route: WriteRouteDefinition<Name, Schema>) {
  const queryFields = route.queryFields?.map((field) => field.name) ?? [];

  const notAllowed = (request: Request) =>
    respond(
      request,
      { ok: false, problem: 'method-not-allowed', detail: `${route.path} accepts POST only.` },
      { Allow: 'POST', ...rateLimitHeaders(route.name) },
    );

  async function POST(request: Request): Promise<Response> {
    const admission = await admit(request, route.name);
    if (!admission.ok) return respond(request, admission.refusal, admission.headers);
    const { client, headers } = admission;
    const fail = (problemType: ProblemType, detail: string, errors?: FieldError[]) =>
      respond(request, { ok: false, problem: problemType, detail, errors }, headers);

    if (isCrossSite(request)) return fail('forbidden-origin', 'Posts to this site must come from its own pages.');
    const refused = route.authorize?.check(request);
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
    const charset = /charset=([^;]+)/i
      .exec(request.headers.get('content-type') ?? '')?.[1]
      ?.trim()
      .replace(/"/g, '')
      .toLowerCase();
    if (charset && charset !== 'utf-8' && charset !== 'utf8') return fail('unsupported-media-type', 'Send the body in UTF-8.');

    const bytes = await readBody(request, FORM_BODY_LIMIT);
    if (bytes === 'too-large') return fail('payload-too-large', `The body is larger than ${FORM_BODY_LIMIT / 1024} KiB.`);
    const parsed =
      bytes.byteLength === 0 && route.optionalBody
        ? ({ ok: true, value: {} } as const)
        : multipart
          ? await multipartFields(bytes, request.headers.get('content-type') ?? '')
          : parse(bytes, type);
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
      result = await route.action(data, { request, client, form: isFormPost(request) });
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
export function writeRouteHandlers(): Handlers & { OPTIONS: (request: Request) => Response } {
  // Each route's own schema types its action; here they are one list, so the definition is taken as the general one.
  const byPath = new Map<string, Handlers>(writeRoutes.map((route) => [route.path, handlersFor(route as WriteRouteDefinition<WriteRoute>)]));
  const at = (request: Request) => byPath.get(new URL(request.url).pathname);
  const noRoute = (request: Request) =>
    problem('not-found', 'No endpoint answers at this path: /openapi.json lists them.', {
      headers: platformHeadersOf(request, 'application/problem+json'),
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
