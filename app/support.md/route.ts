import { supportMarkdown } from '@/lib/feeds/page-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';
import { settings } from '@/lib/settings';

// Also the target of proxy.ts for `/support` negotiated to markdown.
export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(supportMarkdown(), '/support', settings().build.time);
}
