import { lastModified } from '../content/source';
import { invalidQuery } from '../http/query';
import { jsonResponse } from '../http/responses';
import { parseSearchQuery, searchPublishedPosts, type SearchQuery, type SearchResults } from './site';

/** A search's results and the Last-Modified of the posts it searched, judged at the same moment. */
export type SearchAnswer = { results: SearchResults; lastModified: number | undefined };

/** A search run here, on this copy's index and posts (the Next route, and the search thread itself). */
export function searchHere(query: SearchQuery): SearchAnswer {
  return { results: searchPublishedPosts(query), lastModified: lastModified() };
}

/**
 * What `/api/search` answers for a query string: the results as JSON, or a 400 problem naming
 * the first bad parameter. The search itself is `search`'s: the Next route runs it in place
 * (app/api/search/route.ts), lectern's server in its search thread (lib/server/search-thread.ts),
 * which also says when the posts last changed: the server's own thread then never loads the posts.
 */
export async function searchResponse(params: URLSearchParams, search: (query: SearchQuery) => SearchAnswer | Promise<SearchAnswer>): Promise<Response> {
  const query = parseSearchQuery(params);
  if (!query.ok) return invalidQuery(query.errors);
  const answer = await search(query.query);
  return jsonResponse(answer.results, { lastModified: answer.lastModified });
}
