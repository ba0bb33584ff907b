import { mcpRoute } from '../routes/manifest';

/** Where the MCP server answers (its address in the route manifest) and the tools it offers, for the server and the pages that describe it. */
export const MCP_PATH = mcpRoute.path;
/** The methods the MCP endpoint answers: POST for every message, OPTIONS to ask. */
export const MCP_ALLOW = 'OPTIONS, POST';
export const MCP_SERVER_CARD_PATH = '/.well-known/mcp.json';
export const MCP_TOOLS = ['search', 'fetch', 'search_posts', 'get_post', 'list_posts'] as const;
/** The version the server reports in `initialize` and its server card. */
export const MCP_SERVER_VERSION = '1.1.0';
