import { absoluteUrl } from '@/lib/config';
import { homeMarkdown } from '@/lib/feeds/home-markdown';
import { linkHeader } from '@/lib/http/links';
import { markdownResponse } from '@/lib/http/responses';

export const dynamic = 'force-static';

export function GET() {
  return markdownResponse(homeMarkdown(), { headers: { Link: linkHeader(absoluteUrl('/'), 'canonical', 'text/html') } });
}
