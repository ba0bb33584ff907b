import type { NextRequest } from 'next/server';
import { lastModified } from '@/lib/content/source';
import { problem } from '@/lib/http/problem';
import { jsonResponse } from '@/lib/http/responses';
import { parseSearchQuery, searchPublishedPosts } from '@/lib/search/site';

export function GET(request: NextRequest) {
  const query = parseSearchQuery(request.nextUrl.searchParams);
  if (!query.ok) {
    const [first] = query.errors;
    return problem('invalid-query', first ? `${first.path} ${first.message}` : 'The query is invalid.', { errors: query.errors });
  }
  return jsonResponse(searchPublishedPosts(query.query), { lastModified: lastModified() });
}
