import { cacheHeaders } from '../http/cache';
import { messagePage } from '../http/html';
import { problem, problemTypes } from '../http/problem';
import type { WriteResult } from './definition';

/** What the shape of a write route's answer depends on besides its result, read off the request by the handler. */
export type AnswerFacts = {
  /** A urlencoded post (an HTML form): a success with a result page is a 303 to it. */
  form: boolean;
  /** A form post from a browser (Accept: text/html): a failure is a readable page. */
  page: boolean;
  /** Where that page's "go back" link points. */
  back: string;
  /** Headers every answer of the route carries (RateLimit, Allow, …). */
  headers: Record<string, string>;
  /** Headers lectern's server would add for a content type, where it does not run (platform mode); else none. */
  platformHeaders: (contentType: string) => Record<string, string>;
};

/**
 * Turns a result into a response, from nothing but the result and the facts: JSON for
 * programs; for form posts made without JavaScript, 303 to a result page on success and a
 * readable page on failure; problem+json otherwise. Never stored by a cache.
 */
export function shapeAnswer(result: WriteResult, facts: AnswerFacts): Response {
  const type = result.ok ? 'application/json' : facts.page ? 'text/html' : 'application/problem+json';
  const all = { ...cacheHeaders('write'), ...facts.headers, ...(result.ok ? {} : result.headers), ...facts.platformHeaders(type) };
  if (result.ok) {
    if (facts.form && result.redirect) return new Response(null, { status: 303, headers: { ...all, Location: result.redirect } });
    return new Response(JSON.stringify(result.body), { status: result.status, headers: { ...all, 'Content-Type': 'application/json; charset=utf-8' } });
  }
  if (facts.page) {
    const { status, title } = problemTypes[result.problem];
    const page = messagePage({
      title,
      paragraphs: [result.detail],
      list: result.errors?.map((error) => `${error.path}: ${error.message}`),
      back: facts.back,
    });
    return new Response(page, { status, headers: { ...all, 'Content-Type': 'text/html; charset=utf-8' } });
  }
  return problem(result.problem, result.detail, { errors: result.errors, headers: all, cache: 'write' });
}
