import { openApiDocument } from '@/lib/agents/openapi';
import { jsonResponse } from '@/lib/http/responses';
import { settings } from '@/lib/settings';

export const dynamic = 'force-static';

export function GET() {
  return jsonResponse(openApiDocument(settings().site), { signal: true, lastModified: settings().build.time });
}
