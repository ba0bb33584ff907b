import { apiDocsMarkdown } from '@/lib/agents/api-docs';
import { markdownPageResponse } from '@/lib/http/markdown-page';
import { settings } from '@/lib/settings';

// Also the target of proxy.ts for `/docs/api` negotiated to markdown.
export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(apiDocsMarkdown(settings().site), '/docs/api', settings().build.time);
}
