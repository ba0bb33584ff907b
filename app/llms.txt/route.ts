import { llmsTxt } from '@/lib/agents/llms';
import { publishedPosts } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';
import { markdownResponse } from '@/lib/http/responses';

export const dynamic = 'force-static';

export function GET() {
  return markdownResponse(llmsTxt(), { lastModified: newestChange(publishedPosts()) });
}
