import { lastModified } from '@/lib/content/source';
import { homeMarkdown } from '@/lib/feeds/home-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';

// The home page's markdown twin; also the target of proxy.ts for `/` negotiated to markdown.
export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(homeMarkdown(), '/', lastModified());
}
