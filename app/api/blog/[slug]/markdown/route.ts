import { publishedPost } from '@/lib/content';
import { postParams } from '@/lib/content/source';
import { markdownPostResponse } from '@/lib/http/markdown-post';
import { problem } from '@/lib/http/problem';

export function generateStaticParams() {
  return postParams();
}

export async function GET(_request: Request, { params }: RouteContext<'/api/blog/[slug]/markdown'>) {
  const { slug } = await params;
  const post = publishedPost(slug);
  return post ? markdownPostResponse(post) : problem('not-found', 'No published post has this slug.');
}
