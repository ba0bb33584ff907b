import { rssFeed } from '@/lib/feeds/rss';
import { xmlResponse } from '@/lib/http/responses';
import { publishedPosts } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';

export const dynamic = 'force-static';

export async function GET() {
  return xmlResponse(await rssFeed(), 'application/rss+xml', { lastModified: newestChange(publishedPosts()) });
}
