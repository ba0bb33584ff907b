/** Where the MCP server answers and the tools it offers, for the server and the pages that describe it. */
export const MCP_PATH = '/mcp';
export const MCP_TOOLS = ['search_posts', 'get_post', 'list_posts'] as const;
