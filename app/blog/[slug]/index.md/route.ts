import { publishedPost } from '@/lib/content';
import { markdownPostResponse } from '@/lib/http/markdown-post';
import { markdownNotFound } from '@/lib/http/responses';

// Target of proxy.ts for `/blog/{slug}.md` and for `/blog/{slug}` negotiated to markdown.
// Made on the first request, then kept in memory by lectern's server: the build renders only what
// must be static (the post's page and its card), and a post's markdown is its own source text.
export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: RouteContext<'/blog/[slug]/index.md'>) {
  const { slug } = await params;
  const post = publishedPost(slug);
  return post ? markdownPostResponse(post) : markdownNotFound(`/blog/${slug}.md`);
}
