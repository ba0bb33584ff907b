import type { NextRequest } from 'next/server';
import { blogList, blogQuerySchema } from '@/lib/feeds/blog-json';
import { fieldErrors, problem } from '@/lib/http/problem';
import { jsonResponse } from '@/lib/http/responses';
import { lastModified } from '@/lib/content/source';

export function GET(request: NextRequest) {
  const query = blogQuerySchema.safeParse({ limit: request.nextUrl.searchParams.getAll('limit') });
  if (!query.success) {
    const errors = fieldErrors(query.error, 'limit');
    return problem('invalid-query', `limit ${errors[0]?.message ?? 'is invalid'}`, { errors });
  }
  return jsonResponse(blogList(query.data.limit), { lastModified: lastModified() });
}
