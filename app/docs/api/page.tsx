import { problemTypes } from '@/lib/http/problem';
import { routeLimits } from '@/lib/limits/table';
import { MCP_TOOLS } from '@/lib/mcp/names';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX_LENGTH } from '@/lib/search/site';
import { site } from '@/lib/content';
import { pageMetadata } from '@/lib/seo';

export function generateMetadata() {
  return pageMetadata({ title: 'API and agent files', description: `How to read ${site().name} from a program: endpoints, formats and errors.`, path: '/docs/api' });
}

const endpoints: { path: string; type: string; what: string }[] = [
  { path: '/api/blog', type: 'application/json', what: 'Every published post, newest first: {"posts":[…]}. Optional limit: a positive integer.' },
  {
    path: '/api/search?q=…&limit=…',
    type: 'application/json',
    what: `Published posts matching every word of q (1 to ${SEARCH_QUERY_MAX_LENGTH} characters; prefixes and small typos match; title and tags weigh most), best first: {"query","total","results":[…]}, each result with slug, title, description, date, tags, url, markdownUrl and a plain-text snippet. limit: 1 to ${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT}.`,
  },
  { path: '/api/blog/{slug}/markdown', type: 'text/markdown', what: 'The markdown source of one post, YAML frontmatter first.' },
  { path: '/blog/{slug}.md', type: 'text/markdown', what: 'The same markdown, at the post URL plus .md.' },
  { path: '/blog/{slug} with Accept: text/markdown', type: 'text/markdown', what: 'The same markdown, chosen by content negotiation (q-values honoured; responses vary on Accept).' },
  { path: '/api/home/markdown', type: 'text/markdown', what: 'The homepage as markdown, with links to the latest posts.' },
  { path: '/api/rss', type: 'application/rss+xml', what: 'RSS 2.0 feed of the newest 50 posts, full HTML in content:encoded.' },
  { path: '/api/apps/{slug}/download', type: '302 redirect', what: 'Redirects to the current build of a desktop app.' },
];

export default function ApiDocsPage() {
  return (
    <>
      <h1>API and agent files</h1>
      <p>Everything published here can be read without a key, an account or a rendered page. Read endpoints are never rate limited.</p>
      <h2 id="endpoints">Read endpoints</h2>
      <div className="table-wrap" role="region" aria-label="Table: read endpoints" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">GET</th>
              <th scope="col">Content-Type</th>
              <th scope="col">What it returns</th>
            </tr>
          </thead>
          <tbody>
            {endpoints.map((endpoint) => (
              <tr key={endpoint.path}>
                <td>
                  <code>{endpoint.path}</code>
                </td>
                <td>
                  <code>{endpoint.type}</code>
                </td>
                <td>{endpoint.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2 id="mcp">MCP server</h2>
      <p>
        <code>/mcp</code> is a Model Context Protocol server (Streamable HTTP, stateless: no session, every JSON-RPC message is a <code>POST</code>{' '}
        answered with JSON; <code>GET</code> and <code>DELETE</code> answer 405). Its tools only read what is published:{' '}
        {MCP_TOOLS.map((tool, index) => (
          <span key={tool}>
            {index > 0 ? ', ' : ''}
            <code>{tool}</code>
          </span>
        ))}{' '}
        (a search, one post as markdown, the newest posts). <code>llms.txt</code> and <code>pricing.md</code> are its resources. An unknown slug is a tool
        result with <code>isError: true</code>. A request whose <code>Origin</code> is another site&apos;s is refused with 403 (MCP clients send none).
      </p>
      <h2 id="limits">Rate limits</h2>
      <p>
        Per client address, sliding window; every request counts, refused ones too. Over the limit: 429 with <code>Retry-After</code>. Every answer carries{' '}
        <code>RateLimit-Policy</code> and <code>RateLimit</code>. Reads (every <code>GET</code>) are never limited.
      </p>
      <div className="table-wrap" role="region" aria-label="Table: rate limits" tabIndex={0}>
        <table>
          <thead>
            <tr>
              <th scope="col">POST</th>
              <th scope="col">Requests</th>
              <th scope="col">Window</th>
            </tr>
          </thead>
          <tbody>
            {Object.values(routeLimits).map((route) => (
              <tr key={route.path}>
                <td>
                  <code>{route.path}</code>
                </td>
                <td>{route.requests}</td>
                <td>{route.windowSeconds % 3600 === 0 ? `${route.windowSeconds / 3600} h` : `${route.windowSeconds / 60} min`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2 id="problems">Errors</h2>
      <p>
        Errors from <code>/api/*</code> are RFC 9457 problem details (<code>application/problem+json</code>) with <code>type</code>,{' '}
        <code>title</code>, <code>status</code>, <code>detail</code>, and for invalid input <code>errors: [{'{'}path, message{'}'}]</code>. A
        markdown URL that finds nothing answers a short <code>text/markdown</code> 404.
      </p>
      <dl>
        {Object.entries(problemTypes).map(([name, { status, title }]) => (
          <div key={name} id={`problem-${name}`}>
            <dt>
              <code>{name}</code> ({status})
            </dt>
            <dd>{title}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}
