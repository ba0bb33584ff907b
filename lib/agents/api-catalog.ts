import { absoluteUrl } from '../config';
import { tags, urls } from '../content';
import { feedTypes } from '../feeds/feeds';
import { API_CATALOG_PATH, mcpServer, publicEndpoints } from '../public-endpoints';

export { API_CATALOG_PATH, API_CATALOG_TYPE } from '../public-endpoints';
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

const OPENAPI_DESC = { href: '/openapi.json', type: 'application/vnd.oai.openapi+json;version=3.1' };

/** RFC 9727 API catalog as an RFC 9264 linkset: every fixed file and read endpoint of the one list, then each tag's RSS feed. */
export function apiCatalog() {
  const items = publicEndpoints()
    .filter((entry) => entry.catalog)
    .map((entry) => ({ href: absoluteUrl(entry.path), type: entry.type }));
  // Each tag's RSS feed, /tags/{tag}/rss.xml.
  for (const tag of tags()) items.push({ href: urls.tagRss(tag.name), type: feedTypes.rss });
  const serviceDesc = [{ ...OPENAPI_DESC, href: absoluteUrl(OPENAPI_DESC.href) }];
  return {
    linkset: [
      {
        anchor: absoluteUrl(API_CATALOG_PATH),
        item: items,
        'service-desc': serviceDesc,
        'service-doc': [{ href: absoluteUrl('/docs/api'), type: 'text/html' }],
      },
      // The MCP endpoint is an API of its own (RFC 9727 §4: one link context object per API); it answers POST only, so it is no `item` to GET.
      {
        anchor: absoluteUrl(mcpServer.path),
        'service-desc': serviceDesc,
        'service-doc': [{ href: absoluteUrl(mcpServer.docs), type: 'text/html', title: mcpServer.title }],
      },
    ],
  };
}
