import { lastModified, tagFileGet, tagParams } from '@/lib/content/source';
import { tagMarkdown } from '@/lib/feeds/page-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';
import { markdownNotFound } from '@/lib/http/responses';

// Target of proxy.ts for `/tags/{tag}.md` and for `/tags/{tag}` negotiated to markdown. Like the
// tag's page, only the tags of the build: a made-up one is a 404 that Next keeps nothing for.
export const dynamicParams = false;
export const generateStaticParams = tagParams;

export const GET = tagFileGet(
  (tag) => markdownPageResponse(tagMarkdown(tag), tag.path, lastModified(tag.posts)),
  () => markdownNotFound(),
);
