import { rssFeed } from '@/lib/feeds/rss';
import { xmlResponse } from '@/lib/http/responses';

export const dynamic = 'force-static';

export async function GET() {
  return xmlResponse(await rssFeed(), 'application/rss+xml');
}
