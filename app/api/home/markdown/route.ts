import { absoluteUrl } from '@/lib/config';
import { homeMarkdown } from '@/lib/feeds/home-markdown';
import { linkHeader } from '@/lib/http/links';
import { markdownResponse } from '@/lib/http/responses';
import { publishedPosts } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';

export const dynamic = 'force-static';

export function GET() {
  return markdownResponse(homeMarkdown(), {
    lastModified: newestChange(publishedPosts()), headers: { Link: linkHeader(absoluteUrl('/'), 'canonical', 'text/html') } });
}
