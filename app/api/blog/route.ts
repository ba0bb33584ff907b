import type { NextRequest } from 'next/server';
import { blogList, blogQuerySchema } from '@/lib/feeds/blog-json';
import { invalidQuery, parseQuery } from '@/lib/http/query';
import { jsonResponse } from '@/lib/http/responses';
import { lastModified } from '@/lib/content/source';

export function GET(request: NextRequest) {
  const parsed = parseQuery(blogQuerySchema, request.nextUrl.searchParams);
  if (!parsed.ok) return invalidQuery(parsed.errors);
  return jsonResponse(blogList(parsed.query.limit), { lastModified: lastModified() });
}
