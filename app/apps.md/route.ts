import { appsMarkdown } from '@/lib/feeds/page-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';
import { settings } from '@/lib/settings';

// Also the target of proxy.ts for `/apps` negotiated to markdown.
export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(appsMarkdown(), '/apps', settings().build.time);
}
