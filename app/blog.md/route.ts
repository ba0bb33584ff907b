import { lastModified } from '@/lib/content/source';
import { blogMarkdown } from '@/lib/feeds/page-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';

// Also the target of proxy.ts for `/blog` negotiated to markdown.
export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(blogMarkdown(), '/blog', lastModified());
}
