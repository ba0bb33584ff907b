import { lastModified } from '../content/source';
import { invalidQuery } from '../http/query';
import { jsonResponse } from '../http/responses';
import { parseSearchQuery, type SearchQuery, type SearchResults } from './site';

/**
 * What `/api/search` answers for a query string: the results as JSON, or a 400 problem naming
 * the first bad parameter. The search itself is `search`'s: the Next route runs it in place
 * (app/api/search/route.ts), lectern's server in its search thread (lib/server/search-thread.ts).
 */
export async function searchResponse(params: URLSearchParams, search: (query: SearchQuery) => SearchResults | Promise<SearchResults>): Promise<Response> {
  const query = parseSearchQuery(params);
  if (!query.ok) return invalidQuery(query.errors);
  return jsonResponse(await search(query.query), { lastModified: lastModified() });
}
