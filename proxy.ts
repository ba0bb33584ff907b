import { NextResponse, type NextRequest } from 'next/server';
import { SLUG_PATTERN } from '@/lib/content/schema';
import { absoluteUrl } from '@/lib/config';
import { linkHeader } from '@/lib/http/links';
import { prefersMarkdown } from '@/lib/http/negotiate';
import { markdownNotFound, textResponse } from '@/lib/http/responses';
import { indexNowKey } from '@/lib/forms/indexnow-key';

/**
 * Markdown for posts, two ways on top of the API route:
 * `/blog/{slug}.md`, and `/blog/{slug}` with an Accept header that ranks markdown first.
 * Both land on the static `/blog/{slug}/index.md` route.
 */
export function proxy(request: NextRequest) {
  const key = indexNowKey();
  if (key && request.nextUrl.pathname === `/${key}.txt`) {
    // IndexNow's key file: proves the submitted URLs are ours.
    return textResponse(key, { cache: 'read' });
  }
  const match = /^\/blog\/([^/]+?)(\.md)?$/.exec(request.nextUrl.pathname);
  if (!match) return NextResponse.next();
  const [, slug = '', dotMd] = match;
  const wantsMarkdown = dotMd !== undefined || prefersMarkdown(request.headers.get('accept'));
  const vary = dotMd === undefined ? { Vary: 'Accept' } : undefined;

  if (!SLUG_PATTERN.test(slug)) {
    return wantsMarkdown ? withHeaders(markdownNotFound(request.nextUrl.pathname), vary) : NextResponse.next({ headers: vary });
  }
  if (wantsMarkdown) {
    const target = request.nextUrl.clone();
    target.pathname = `/blog/${slug}/index.md`;
    return NextResponse.rewrite(target, { headers: vary });
  }
  return NextResponse.next({
    headers: { ...vary, Link: linkHeader(absoluteUrl(`/blog/${slug}.md`), 'alternate', 'text/markdown') },
  });
}

function withHeaders(response: Response, headers: Record<string, string> | undefined): Response {
  for (const [name, value] of Object.entries(headers ?? {})) response.headers.set(name, value);
  return response;
}

export const config = { matcher: ['/blog/:path+', '/:key([A-Za-z0-9-]{8,128}).txt'] };
