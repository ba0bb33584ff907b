import { llmsTxt } from '@/lib/agents/llms';
import { lastModified } from '@/lib/content/source';
import { markdownResponse } from '@/lib/http/responses';

export const dynamic = 'force-static';

export function GET() {
  return markdownResponse(llmsTxt(), { lastModified: lastModified() });
}
