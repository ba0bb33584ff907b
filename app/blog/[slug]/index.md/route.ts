import { contentPaths, publishedPost } from '@/lib/content';
import { postParams } from '@/lib/content/source';
import { markdownPostResponse } from '@/lib/http/markdown-post';
import { markdownNotFound } from '@/lib/http/responses';

// Target of proxy.ts for `/blog/{slug}.md` and for `/blog/{slug}` negotiated to markdown.
export function generateStaticParams() {
  return postParams();
}

export async function GET(_request: Request, { params }: RouteContext<'/blog/[slug]/index.md'>) {
  const { slug } = await params;
  const post = publishedPost(slug);
  return post ? markdownPostResponse(post) : markdownNotFound(contentPaths.postMarkdown(slug));
}
