import { llmsFullTxt } from '@/lib/agents/llms-full';
import { lastModified } from '@/lib/content/source';
import { markdownResponse } from '@/lib/http/responses';

// Built once at build time and served from the build output.
export const dynamic = 'force-static';

export function GET() {
  return markdownResponse(llmsFullTxt(), { lastModified: lastModified() });
}
