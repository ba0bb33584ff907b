import { absoluteUrl } from '../config';
import { tags, urls } from '../content';
import { feedTypes } from '../feeds/feeds';
import { agentFiles, mcpServer, optionalFiles, pageTwins } from './llms';

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

/** Every file and read endpoint an agent may start from (templated paths shown with a real example elsewhere). */
const readEndpoints = [
  { path: '/api/blog', type: 'application/json' },
  { path: '/api/home/markdown', type: 'text/markdown' },
  { path: '/api/rss', type: 'application/rss+xml' },
  { path: '/atom.xml', type: 'application/atom+xml' },
  { path: '/feed.json', type: 'application/feed+json' },
  { path: '/llms.txt', type: 'text/markdown' },
  { path: '/robots.txt', type: 'text/plain' },
];

/** RFC 9727 API catalog as an RFC 9264 linkset. */
export function apiCatalog() {
  const seen = new Set<string>();
  const items = [...readEndpoints, ...agentFiles, ...pageTwins, ...optionalFiles]
    .filter((file) => file.path !== API_CATALOG_PATH && !seen.has(file.path) && seen.add(file.path))
    .map((file) => ({ href: absoluteUrl(file.path), type: file.type }));
  // Each tag's RSS feed, /tags/{tag}/rss.xml.
  for (const tag of tags()) items.push({ href: urls.tagRss(tag.name), type: feedTypes.rss });
  return {
    linkset: [
      {
        anchor: absoluteUrl(API_CATALOG_PATH),
        item: items,
        'service-desc': [{ href: absoluteUrl('/openapi.json'), type: 'application/vnd.oai.openapi+json;version=3.1' }],
        'service-doc': [{ href: absoluteUrl('/docs/api'), type: 'text/html' }],
      },
      // The MCP endpoint is an API of its own (RFC 9727 §4: one link context object per API); it answers POST only, so it is no `item` to GET.
      {
        anchor: absoluteUrl(mcpServer.path),
        'service-desc': [{ href: absoluteUrl('/openapi.json'), type: 'application/vnd.oai.openapi+json;version=3.1' }],
        'service-doc': [{ href: absoluteUrl(mcpServer.docs), type: 'text/html', title: mcpServer.title }],
      },
    ],
  };
}
