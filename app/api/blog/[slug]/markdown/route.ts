import { publishedPost } from '@/lib/content';
import { markdownPostResponse } from '@/lib/http/markdown-post';
import { problem } from '@/lib/http/problem';

// Made on the first request, then kept in memory by lectern's server: the build renders only what
// must be static (the post's page and its card), and a post's markdown is its own source text.
export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: RouteContext<'/api/blog/[slug]/markdown'>) {
  const { slug } = await params;
  const post = publishedPost(slug);
  return post ? markdownPostResponse(post) : problem('not-found', 'No published post has this slug.');
}
