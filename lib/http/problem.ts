import { absoluteUrl } from '../config';
import { cacheHeaders, type CacheProfile } from './cache';

/** Every problem type lectern answers with, documented at /docs/api#problems. */
export const problemTypes = {
  'not-found': { status: 404, title: 'Not found' },
  'invalid-query': { status: 400, title: 'Invalid query parameter' },
} as const;
export type ProblemType = keyof typeof problemTypes;

export type FieldError = { path: string; message: string };

/** RFC 9457 problem details. */
export function problem(
  type: ProblemType,
  detail: string,
  options: { errors?: FieldError[]; headers?: HeadersInit; cache?: CacheProfile } = {},
): Response {
  const { status, title } = problemTypes[type];
  const body = { type: absoluteUrl(`/docs/api#problem-${type}`), title, status, detail, ...(options.errors ? { errors: options.errors } : {}) };
  const headers = new Headers(options.headers);
  headers.set('Content-Type', 'application/problem+json; charset=utf-8');
  for (const [name, value] of Object.entries(cacheHeaders(options.cache ?? 'error'))) headers.set(name, value);
  return new Response(JSON.stringify(body), { status, headers });
}
