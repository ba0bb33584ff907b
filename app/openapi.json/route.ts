import { openApiDocument } from '@/lib/agents/openapi';
import { jsonResponse } from '@/lib/http/responses';

export const dynamic = 'force-static';

export function GET() {
  return jsonResponse(openApiDocument(), { signal: true });
}
