import { mcpExchange } from '@/lib/mcp/exchange';
import { settings } from '@/lib/settings';
import { handleMcpPost, mcpMethodNotAllowed, mcpOptions } from '@/lib/mcp/http';
import { services } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

export function POST(request: Request) {
  return handleMcpPost(request, services().limiter, settings(), mcpExchange);
}

export const OPTIONS = mcpOptions;
export const GET = mcpMethodNotAllowed;
export const DELETE = mcpMethodNotAllowed;
export const PUT = mcpMethodNotAllowed;
export const PATCH = mcpMethodNotAllowed;
