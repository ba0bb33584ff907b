import { publishedPost } from '@/lib/content';
import { markdownPostResponse } from '@/lib/http/markdown-post';
import { problem } from '@/lib/http/problem';

// The same bytes as `/blog/{slug}.md`, whose route the build generates: this one is generated on
// its first request and kept, so a build renders each post's markdown once.
export const dynamic = 'force-static';
export function generateStaticParams() {
  return [];
}

export async function GET(_request: Request, { params }: RouteContext<'/api/blog/[slug]/markdown'>) {
  const { slug } = await params;
  const post = publishedPost(slug);
  return post ? markdownPostResponse(post) : problem('not-found', 'No published post has this slug.');
}
