import { contentPaths, tagBySlug } from '@/lib/content';
import { lastModified, tagParams } from '@/lib/content/source';
import { tagMarkdown } from '@/lib/feeds/page-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';
import { markdownNotFound } from '@/lib/http/responses';

// Target of proxy.ts for `/tags/{tag}.md` and for `/tags/{tag}` negotiated to markdown. Like the
// tag's page, only the tags of the build: a made-up one is a 404 that Next keeps nothing for.
export const dynamicParams = false;

export function generateStaticParams() {
  return tagParams();
}

export async function GET(_request: Request, { params }: RouteContext<'/tags/[tag]/index.md'>) {
  const { tag: slug } = await params;
  const tag = tagBySlug(slug);
  return tag ? markdownPageResponse(tagMarkdown(tag), tag.path, lastModified(tag.posts)) : markdownNotFound(contentPaths.tagMarkdown(slug));
}
