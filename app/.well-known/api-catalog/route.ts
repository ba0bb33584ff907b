import { API_CATALOG_LINK, API_CATALOG_TYPE, apiCatalog } from '@/lib/agents/api-catalog';
import { jsonResponse } from '@/lib/http/responses';
import { settings } from '@/lib/settings';

export const dynamic = 'force-static';

export function GET() {
  return jsonResponse(apiCatalog(), { contentType: API_CATALOG_TYPE, signal: true, lastModified: settings().build.time, headers: { Link: API_CATALOG_LINK } });
}
