import { llmsFullTxt } from '@/lib/agents/llms-full';
import { publishedPosts } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';
import { markdownResponse } from '@/lib/http/responses';

// Built once at build time and served from the build output.
export const dynamic = 'force-static';

export function GET() {
  return markdownResponse(llmsFullTxt(), { lastModified: newestChange(publishedPosts()) });
}
