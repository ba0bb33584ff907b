import { jsonResponse } from '@/lib/http/responses';
import { mcpServerCard } from '@/lib/mcp/card';
import { settings } from '@/lib/settings';

export const dynamic = 'force-static';

export async function GET() {
  return jsonResponse(await mcpServerCard(), { signal: true, lastModified: settings().build.time });
}
