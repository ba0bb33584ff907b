import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from '../search/limits';

/** How many posts `list_posts` gives unless asked, and at most. */
export const LIST_DEFAULT = 10;
export const LIST_MAX = 50;
/** How many results `search` gives: a connector reads the few best and fetches them. */
export const CONNECTOR_SEARCH_LIMIT = 10;

/** What a search of `limit` results costs: 1, and 1 per 5 results asked (an MCP search, and a verified agent's /api/search). */
export function searchCost(limit: number): number {
  return 1 + Math.ceil(limit / 5);
}

/** A JSON-RPC message's tool call: the tool's name and its arguments, or undefined for any other message. */
function toolCall(message: unknown): { name: string; args: Record<string, unknown> } | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
  const args = typeof params.arguments === 'object' && params.arguments !== null ? (params.arguments as Record<string, unknown>) : {};
  return { name: params.name, args };
}

/** A positive whole `limit` argument, or `fallback` (the tool's default, or what it answers for a bad one: an error). */
function asked(args: Record<string, unknown>, fallback: number, max: number): number {
  const limit = args.limit;
  return typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 ? Math.min(limit, max) : fallback;
}

/**
 * What one MCP message costs against the client's budget (the `mcp` limit counts these units, not
 * calls): 1 for a message that does no search and reads at most one small thing (initialize,
 * tools/list, ping, a resource, a notification, anything not understood); a tool call by its work:
 * a post read 2, a list 1 per 10 posts asked (and 1), a search 1 plus 1 per 5 results asked, so a
 * 50-result `search_posts` costs 11 `tools/list`.
 */
export function mcpCost(message: unknown): number {
  const call = toolCall(message);
  if (!call) return 1;
  switch (call.name) {
    case 'search':
      return searchCost(CONNECTOR_SEARCH_LIMIT);
    case 'search_posts':
      return searchCost(asked(call.args, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX));
    case 'list_posts':
      return 1 + Math.ceil(asked(call.args, LIST_DEFAULT, LIST_MAX) / 10);
    case 'fetch':
    case 'get_post':
      return 2;
    default:
      return 1;
  }
}
