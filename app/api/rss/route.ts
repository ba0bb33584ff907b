import { feedTypes, rssFeed } from '@/lib/feeds/feeds';
import { feedResponse } from '@/lib/http/responses';
import { publishedPosts } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';

export const dynamic = 'force-static';

export async function GET() {
  return feedResponse(await rssFeed(), feedTypes.rss, { lastModified: newestChange(publishedPosts()) });
}
