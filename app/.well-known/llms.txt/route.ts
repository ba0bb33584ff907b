import { GET as llmsTxt } from '../../llms.txt/route';

// The same file as /llms.txt, at the well-known location.
export const dynamic = 'force-static';

export function GET() {
  return llmsTxt();
}
