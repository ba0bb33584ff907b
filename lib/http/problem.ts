import type { z } from 'zod';
import { absoluteUrl } from '../runtime/site';
import { cacheHeaders, type CacheProfile } from './cache';

/** Every problem type lectern answers with, documented at /docs/api#problems. */
export const problemTypes = {
  'not-found': { status: 404, title: 'Not found' },
  'invalid-query': { status: 400, title: 'Invalid query parameter' },
  'invalid-body': { status: 400, title: 'Body cannot be parsed' },
  'invalid-input': { status: 400, title: 'Invalid input' },
  'invalid-path': { status: 400, title: 'Malformed URL' },
  unauthorized: { status: 401, title: 'Authentication required' },
  'forbidden-origin': { status: 403, title: 'Cross-site post refused' },
  'training-crawler': { status: 403, title: 'Training crawlers refused' },
  'blocked-server': { status: 403, title: 'Server blocked' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  gone: { status: 410, title: 'No longer available' },
  'payload-too-large': { status: 413, title: 'Body too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported content type' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  'not-served-by-lectern': { status: 500, title: 'Client address not known' },
  'not-implemented': { status: 501, title: 'Not available yet' },
  'bad-gateway': { status: 502, title: 'Upstream service failed' },
  'service-unavailable': { status: 503, title: 'Service not configured' },
  overloaded: { status: 503, title: 'Too busy; try again shortly' },
  'cancellation-pending': { status: 503, title: 'Cancellation pending' },
  'payments-unavailable': { status: 503, title: 'Payments unavailable; try again shortly' },
  'download-link-invalid': { status: 404, title: 'Download link not valid' },
  'download-link-expired': { status: 410, title: 'Download link expired' },
  'download-limit-reached': { status: 410, title: 'Download limit reached' },
  'order-refunded': { status: 410, title: 'Order refunded' },
  'range-not-satisfiable': { status: 416, title: 'Range not satisfiable' },
} as const;
export type ProblemType = keyof typeof problemTypes;

export type FieldError = { path: string; message: string };

/**
 * The `errors` of an invalid-input problem, from zod's issues: each names the
 * field (dotted path; `whole` when the issue is about the input as a whole),
 * and an unknown field is named as such.
 */
export function fieldErrors(error: { issues: readonly z.core.$ZodIssue[] }, whole: string): FieldError[] {
  return error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: [...issue.path, key].join('.'), message: 'is not a known field' }))
      : [{ path: issue.path.join('.') || whole, message: issue.message }],
  );
}

/** The body of an RFC 9457 problem. */
export function problemDetails(type: ProblemType, detail: string, errors?: FieldError[]) {
  const { status, title } = problemTypes[type];
  return { type: absoluteUrl(`/docs/api#problem-${type}`), title, status, detail, ...(errors ? { errors } : {}) };
}

/** RFC 9457 problem details. */
export function problem(type: ProblemType, detail: string, options: { errors?: FieldError[]; headers?: HeadersInit; cache?: CacheProfile } = {}): Response {
  const body = problemDetails(type, detail, options.errors);
  const { status } = body;
  const headers = new Headers(options.headers);
  headers.set('Content-Type', 'application/problem+json; charset=utf-8');
  for (const [name, value] of Object.entries(cacheHeaders(options.cache ?? 'error'))) headers.set(name, value);
  return new Response(JSON.stringify(body), { status, headers });
}
