import { feedTypes, jsonFeed } from '@/lib/feeds/feeds';
import { feedResponse } from '@/lib/http/responses';
import { lastModified } from '@/lib/content/source';

export const dynamic = 'force-static';

export async function GET() {
  return feedResponse(await jsonFeed(), feedTypes.json, { lastModified: lastModified() });
}
