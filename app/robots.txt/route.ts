import { robotsTxt } from '@/lib/agents/robots';
import { textResponse } from '@/lib/http/responses';

export const dynamic = 'force-static';

export function GET() {
  return textResponse(robotsTxt(), { signal: true });
}
