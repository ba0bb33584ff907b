import { publishedPosts } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';
import { homeMarkdown } from '@/lib/feeds/home-markdown';
import { markdownPageResponse } from '@/lib/http/markdown-page';

export const dynamic = 'force-static';

export function GET() {
  return markdownPageResponse(homeMarkdown(), '/', newestChange(publishedPosts()));
}
