import { robotsTxt } from '@/lib/agents/robots';
import { textResponse } from '@/lib/http/responses';
import { settings } from '@/lib/settings';

export const dynamic = 'force-static';

export function GET() {
  return textResponse(robotsTxt(), { signal: true, lastModified: settings().build.time });
}
