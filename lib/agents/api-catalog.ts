import { absoluteUrl } from '../runtime/site';
import { tags, urls } from '../content';
import { feedTypes } from '../feeds/feeds';
import { API_CATALOG_PATH, mcpServer, publicEndpoints } from '../public-endpoints';
import { MCP_PROTOCOL_VERSIONS, MCP_SERVER_CARD_PATH } from './mcp-names';

export { API_CATALOG_PATH, API_CATALOG_TYPE } from '../public-endpoints';
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

/**
 * RFC 9727 API catalog as an RFC 9264 linkset: every fixed file and read endpoint of the one
 * list, each tag's RSS feed and the MCP endpoint. Each link's type is the one its URL is served
 * with (/openapi.json is served as application/json).
 */
export function apiCatalog() {
  const endpoints = publicEndpoints();
  const items: { href: string; type: string; title?: string; 'mcp-protocol-versions'?: string[] }[] = endpoints
    .filter((entry) => entry.catalog)
    .map((entry) => ({ href: absoluteUrl(entry.path), type: entry.type }));
  // Each tag's RSS feed, /tags/{tag}/rss.xml.
  for (const tag of tags()) items.push({ href: urls.tagRss(tag.name), type: feedTypes.rss });
  // The MCP endpoint takes POSTs of JSON-RPC messages and answers JSON; an extension target attribute (RFC 9264 §4.2.4.3) names the revisions it serves.
  items.push({ href: absoluteUrl(mcpServer.path), type: 'application/json', title: mcpServer.title, 'mcp-protocol-versions': [...MCP_PROTOCOL_VERSIONS] });
  const described = (path: string) => ({ href: absoluteUrl(path), type: endpoints.find((entry) => entry.path === path)?.type ?? 'application/json' });
  const serviceDesc = [described('/openapi.json')];
  return {
    linkset: [
      {
        anchor: absoluteUrl(API_CATALOG_PATH),
        item: items,
        'service-desc': serviceDesc,
        'service-doc': [{ href: absoluteUrl('/docs/api'), type: 'text/html' }],
      },
      // The MCP endpoint is also an API of its own (RFC 9727 §4: one link context object per API), described by its server card too.
      {
        anchor: absoluteUrl(mcpServer.path),
        'service-desc': [...serviceDesc, described(MCP_SERVER_CARD_PATH)],
        'service-doc': [{ href: absoluteUrl(mcpServer.docs), type: 'text/html', title: mcpServer.title }],
      },
    ],
  };
}
