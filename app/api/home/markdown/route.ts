import { lastModified } from '@/lib/content/source';
import { homeMarkdown } from '@/lib/feeds/home-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';

export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(homeMarkdown(), '/', lastModified());
}
