import type { NextRequest } from 'next/server';
import { searchHere, searchResponse } from '@/lib/search/response';

/** Under lectern's server the server answers this path itself (lib/server/search-thread.ts); this route answers it under `next start`, a platform host and `npm run dev`. */
export function GET(request: NextRequest) {
  return searchResponse(request.nextUrl.searchParams, searchHere);
}
