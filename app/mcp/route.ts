import { handleMcpPost, mcpMethodNotAllowed, mcpOptions } from '@/lib/mcp/handler';

export const dynamic = 'force-dynamic';

export const POST = handleMcpPost;
export const OPTIONS = mcpOptions;
export const GET = mcpMethodNotAllowed;
export const DELETE = mcpMethodNotAllowed;
export const PUT = mcpMethodNotAllowed;
export const PATCH = mcpMethodNotAllowed;
