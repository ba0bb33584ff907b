import { apiDocsMarkdown } from '@/lib/agents/api-docs';
import { markdownPageResponse } from '@/lib/http/markdown-page';

// Also the target of proxy.ts for `/docs/api` negotiated to markdown.
export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(apiDocsMarkdown(), '/docs/api');
}
