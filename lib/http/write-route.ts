import type { z } from 'zod';
import { config } from '../config';
import { describeError } from '../log';
import { formSchemas, type FormInput } from '../forms/schemas';
import { limiter, type LimitDecision } from '../limits';
import { writeRouteLimits, type WriteRoute } from '../limits/table';
import { FORM_BODY_LIMIT, readBody } from './body';
import { cacheHeaders } from './cache';
import { clientAddress, limitKey } from './client-ip';
import { messagePage } from './html';
import { problem, problemTypes, type FieldError, type ProblemType } from './problem';

/**
 * What a route's action answers: a result, or a problem. A form post is sent
 * to `redirect` (303) on success; without one it gets the status and body.
 */
export type WriteResult =
  | { ok: true; status: 200 | 202; body: Record<string, unknown>; redirect?: string }
  | { ok: false; problem: ProblemType; detail: string; errors?: FieldError[]; headers?: Record<string, string> };

export type WriteContext = { request: Request; client: string; form: boolean };

type Options<R extends WriteRoute> = {
  action: (input: FormInput<R>, context: WriteContext) => Promise<WriteResult>;
  /** The answer to a filled honeypot: what a real success would look like, with nothing done. */
  accepted: (input: FormInput<R>) => WriteResult;
  /** Checked after the limit and before the body is read (bearer tokens). */
  authorize?: (request: Request) => WriteResult | undefined;
  /** A body may be absent (then `{}` is validated). */
  optionalBody?: boolean;
  /** Fields that may also come from the query string (a link's own parameters); one given in both places is refused. */
  queryFields?: readonly string[];
  /** Also accepts multipart/form-data (text fields only), as some mail providers send one-click unsubscribes. */
  multipart?: boolean;
};

type Env = { trustProxy: number };

function env(): Env {
  const trustProxy = Number(process.env.TRUST_PROXY || 0);
  if (!Number.isInteger(trustProxy) || trustProxy < 0) throw new Error('Invalid environment:\n  TRUST_PROXY: must be a whole number of proxy hops (0 or more)');
  return { trustProxy };
}

function rateLimitHeaders(route: WriteRoute, decision?: LimitDecision): Record<string, string> {
  const { requests, windowSeconds } = writeRouteLimits[route];
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

function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key].join('.'), message: 'is not a known field' }))
      : [{ path: issue.path.join('.') || '(body)', message: issue.message }],
  );
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
  const all = { ...cacheHeaders('write'), ...headers, ...(result.ok ? {} : result.headers) };
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

let warnedNotServedByLectern = false;

/**
 * A write route reached without lectern's server in front (`next start`): no
 * client address can be believed, and a shared or client-chosen limit key
 * would be no limit at all, so nothing is done. Logged once per process.
 */
function notServedByLectern(request: Request, route: WriteRoute): Response {
  if (!warnedNotServedByLectern) {
    warnedNotServedByLectern = true;
    console.error("write routes refused: requests arrive without a client address recorded by lectern's server; run the site with `npm start`, not `next start`");
  }
  return respond(
    request,
    { ok: false, problem: 'not-served-by-lectern', detail: "This site takes posts only when it runs with `npm start` (lectern's server), which records each client's address for the rate limits. Nothing was kept." },
    rateLimitHeaders(route),
  );
}

/**
 * The one front door of every write route, in this order: method (405), the
 * client address recorded by lectern's server (500 without one), limit (429,
 * every request counts), origin (403), authorization, content type (415), size
 * (413, while reading), parse (400), validation (400 with errors), honeypot,
 * then the route's action.
 */
export function writeRoute<R extends WriteRoute>(route: R, options: Options<R>) {
  const schema = formSchemas[route] as unknown as z.ZodType<FormInput<R>>;

  const notAllowed = (request: Request) =>
    respond(request, { ok: false, problem: 'method-not-allowed', detail: `${writeRouteLimits[route].path} accepts POST only.` }, { Allow: 'POST', ...rateLimitHeaders(route) });

  async function POST(request: Request): Promise<Response> {
    const address = clientAddress(request.headers, env().trustProxy);
    if (!address) return notServedByLectern(request, route);
    const client = limitKey(address);
    const decision = await limiter().check(route, client);
    const headers = rateLimitHeaders(route, decision);
    if (!decision.allowed) {
      const wait = decision.retryAfterSeconds;
      return respond(
        request,
        { ok: false, problem: 'rate-limited', detail: `Too many requests from your address. Try again in ${wait} second${wait === 1 ? '' : 's'}.` },
        { ...headers, 'Retry-After': String(wait) },
      );
    }
    const fail = (problemType: ProblemType, detail: string, errors?: FieldError[]) => respond(request, { ok: false, problem: problemType, detail, errors }, headers);

    if (isCrossSite(request)) return fail('forbidden-origin', 'Posts to this site must come from its own pages.');
    const refused = options.authorize?.(request);
    if (refused) return respond(request, refused, headers);

    const type = mediaType(request);
    if (type === undefined && options.optionalBody) {
      const bytes = await readBody(request, FORM_BODY_LIMIT);
      if (bytes !== 'too-large' && bytes.byteLength === 0) return run({}, headers, request, client);
    }
    const multipart = options.multipart === true && type === 'multipart/form-data';
    if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded' && !multipart) {
      return fail('unsupported-media-type', `Send the body as application/json${options.multipart ? ', application/x-www-form-urlencoded or multipart/form-data' : ' or application/x-www-form-urlencoded'}.`);
    }
    const charset = /charset=([^;]+)/i.exec(request.headers.get('content-type') ?? '')?.[1]?.trim().replace(/"/g, '').toLowerCase();
    if (charset && charset !== 'utf-8' && charset !== 'utf8') return fail('unsupported-media-type', 'Send the body in UTF-8.');

    const bytes = await readBody(request, FORM_BODY_LIMIT);
    if (bytes === 'too-large') return fail('payload-too-large', `The body is larger than ${FORM_BODY_LIMIT / 1024} KiB.`);
    const parsed =
      bytes.byteLength === 0 && options.optionalBody
        ? ({ ok: true, value: {} } as const)
        : multipart
          ? await multipartFields(bytes, request.headers.get('content-type') ?? '')
          : parse(bytes, type);
    if (!parsed.ok) return fail('invalid-body', parsed.detail);
    return run(parsed.value, headers, request, client);
  }

  async function run(value: unknown, headers: Record<string, string>, request: Request, client: string): Promise<Response> {
    const input = schema.safeParse(withQueryFields(value, request, options.queryFields ?? []));
    if (!input.success) {
      const errors = fieldErrors(input.error);
      return respond(request, { ok: false, problem: 'invalid-input', detail: `Check ${errors.map((error) => error.path).join(', ')}.`, errors }, headers);
    }
    const honeypot = (input.data as { website?: string }).website;
    if (honeypot) return respond(request, options.accepted(input.data), headers);
    let result: WriteResult;
    try {
      result = await options.action(input.data, { request, client, form: isFormPost(request) });
    } catch (error) {
      // Nothing was answered 2xx, so nothing is lost: the sender is told to try again.
      console.error(`${writeRouteLimits[route].path}: ${describeError(error)}`);
      return respond(request, { ok: false, problem: 'service-unavailable', detail: 'The request could not be saved right now and nothing was kept. Please try again in a minute.' }, { ...headers, 'Retry-After': '60' });
    }
    return respond(request, result, headers);
  }

  return { POST, GET: notAllowed, PUT: notAllowed, PATCH: notAllowed, DELETE: notAllowed };
}
