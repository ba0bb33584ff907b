import { jsonResponse } from '@/lib/http/responses';
import { mcpServerCard } from '@/lib/mcp/card';

export const dynamic = 'force-static';

export async function GET() {
  return jsonResponse(await mcpServerCard(), { signal: true });
}
