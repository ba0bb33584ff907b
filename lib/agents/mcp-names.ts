import { mcpRoute, mcpServerCardRoute } from '../routes/manifest';

/** Where the MCP server answers (its address in the route manifest) and the tools it offers, for the server and the pages that describe it. */
export const MCP_PATH = mcpRoute.path;
/** The methods the MCP endpoint answers: POST for every message, OPTIONS to ask. */
export const MCP_ALLOW = 'OPTIONS, POST';
export const MCP_SERVER_CARD_PATH = mcpServerCardRoute.path;
export const MCP_TOOLS = ['search', 'fetch', 'search_posts', 'get_post', 'list_posts'] as const;
/** The version the server reports in `initialize` and its server card. */
export const MCP_SERVER_VERSION = '1.1.0';
/**
 * The MCP revisions /mcp serves, newest first: 2026-07-28 (negotiated by `server/discover`) and the
 * 2025-era ones the `initialize` handshake takes (the SDK's SUPPORTED_PROTOCOL_VERSIONS; a unit test
 * holds the two lists together). The server card and the API catalog name them.
 */
export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;
