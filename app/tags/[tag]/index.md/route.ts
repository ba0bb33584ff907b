import { staticParams, tags } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';
import { tagMarkdown } from '@/lib/feeds/page-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';
import { markdownNotFound } from '@/lib/http/responses';

// Target of proxy.ts for `/tags/{tag}.md` and for `/tags/{tag}` negotiated to markdown.
export function generateStaticParams() {
  return staticParams(() => tags().map((tag) => ({ tag: tag.slug })));
}

export async function GET(_request: Request, { params }: RouteContext<'/tags/[tag]/index.md'>) {
  const { tag: slug } = await params;
  const tag = tags().find((entry) => entry.slug === slug);
  return tag ? markdownPageResponse(tagMarkdown(tag), `/tags/${tag.slug}`, newestChange(tag.posts)) : markdownNotFound(`/tags/${slug}.md`);
}
