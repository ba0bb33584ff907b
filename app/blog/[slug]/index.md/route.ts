import { publishedPost } from '@/lib/content';
import { postParams } from '@/lib/content/source';
import { markdownPostResponse } from '@/lib/http/markdown-post';
import { markdownNotFound } from '@/lib/http/responses';

// Target of proxy.ts for `/blog/{slug}.md` and for `/blog/{slug}` negotiated to markdown.
// The newest PRERENDER_POSTS posts are generated at build, the others on their first request;
// a slug that is not a published post is a 404 without rendering anything.
export const dynamicParams = true;
export const generateStaticParams = postParams;

export async function GET(_request: Request, { params }: RouteContext<'/blog/[slug]/index.md'>) {
  const { slug } = await params;
  const post = publishedPost(slug);
  return post ? markdownPostResponse(post) : markdownNotFound();
}
