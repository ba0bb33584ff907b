import { beforeAll, describe, expect, inject, it } from 'vitest';
import { request, type RawResponse } from '../support/client';
import { contractSites } from '../support/contract-sites';

/**
 * Under lectern's server, /api/search is answered by the server itself, the search run in its
 * search thread (lib/server/search-thread.ts); `next start` on the same build answers it with
 * the Next route (app/api/search/route.ts). Both must give a reader the same answer.
 */
const site = contractSites();
let nextRoute: string;

beforeAll(async () => {
  nextRoute = (await site({ nextStart: true })).baseUrl;
});

/** What the route decides: the status, the bytes and the headers it sets (lectern's server adds its security headers and validators). */
const ROUTE_HEADERS = ['content-type', 'cache-control', 'last-modified', 'access-control-allow-origin'];
const routePart = (response: RawResponse) => ({
  status: response.status,
  body: response.body,
  headers: Object.fromEntries(ROUTE_HEADERS.map((name) => [name, response.headers[name]])),
});

const QUERIES = [
  'q=alpha',
  'q=test&limit=1',
  'q=Alpha%20post&limit=50',
  'q=caf%C3%A9',
  'q=nothing-matches-this',
  'q=%ZZ',
  '',
  'q=',
  'q=a&q=b',
  'q=test&limit=0',
  'q=test&limit=51',
  `q=${'word '.repeat(41)}`,
  'limit=3',
];

describe("/api/search under lectern's server", () => {
  it.each(QUERIES)('answers ?%s as the Next route does', async (query) => {
    const path = `/api/search?${query}`;
    const [own, route] = await Promise.all([request(inject('baseUrl'), path), request(nextRoute, path)]);
    expect(routePart(own)).toEqual(routePart(route));
    expect(own.headers['x-content-type-options']).toBe('nosniff');
    expect(own.headers.etag).toMatch(/^"[\w-]+"$/);
  });

  it('answers many searches at once, each with its own results, and its cached reads meanwhile', async () => {
    const base = inject('baseUrl');
    const words = ['alpha', 'beta', 'gamma', 'test', 'post'];
    const [searches, reads] = await Promise.all([
      Promise.all(Array.from({ length: 60 }, (_, i) => request(base, `/api/search?q=${words[i % words.length]}`))),
      Promise.all(Array.from({ length: 10 }, () => request(base, '/llms.txt'))),
    ]);
    expect(searches.map((response) => response.status)).toEqual(searches.map(() => 200));
    expect(searches.map((response) => (response.json() as { query: string }).query)).toEqual(searches.map((_, i) => words[i % words.length]));
    expect(reads.map((response) => response.status)).toEqual(reads.map(() => 200));
  });
});
