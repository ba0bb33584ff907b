import { feedTypes, rssFeed } from '@/lib/feeds/feeds';
import { feedResponse } from '@/lib/http/responses';
import { lastModified } from '@/lib/content/source';

export const dynamic = 'force-static';

export async function GET() {
  return feedResponse(await rssFeed(), feedTypes.rss, { lastModified: lastModified() });
}
