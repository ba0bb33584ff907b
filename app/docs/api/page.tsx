import { DocsTable } from '@/components/docs-table';
import { apiDocsFacts, markdownTwins, markdownTwinsText, readEndpoints } from '@/lib/agents/api-docs';
import { problemTypes } from '@/lib/http/problem';
import { appliedLimit, routeLimits, type LimitedRoute } from '@/lib/limits/table';
import { MCP_TOOLS } from '@/lib/agents/mcp-names';
import { pageMetadata } from '@/lib/seo';
import { settings } from '@/lib/settings';

export function generateMetadata() {
  const { title, description } = apiDocsFacts();
  return pageMetadata({ title, description, path: '/docs/api' });
}

export default function ApiDocsPage() {
  return (
    <>
      <h1>{apiDocsFacts().title}</h1>
      <p>{apiDocsFacts().intro}</p>
      <h2 id="endpoints">Read endpoints</h2>
      <DocsTable
        label="read endpoints"
        head={['GET', 'Content-Type', 'What it returns']}
        rows={readEndpoints(settings().site).map((endpoint) => [
          <code key="path">{endpoint.path}</code>,
          <code key="type">{endpoint.type}</code>,
          endpoint.what,
        ])}
      />
      <h2 id="markdown-twins">Pages as markdown</h2>
      <p>{markdownTwinsText.lead}</p>
      <p>{markdownTwinsText.rules}</p>
      <DocsTable
        label="pages as markdown"
        head={['Page', 'Markdown']}
        rows={markdownTwins.map((twin) => [<code key="page">{twin.page}</code>, <code key="markdown">{twin.markdown}</code>])}
      />
      <h2 id="mcp">MCP server</h2>
      <p>
        <code>/mcp</code> is a Model Context Protocol server (Streamable HTTP, stateless: no session, every JSON-RPC message is a <code>POST</code> answered
        with JSON, one message per request; a batch is refused). <code>OPTIONS</code> names the methods it answers; <code>GET</code> and <code>DELETE</code>{' '}
        answer 405. Its tools only read what is published:{' '}
        {MCP_TOOLS.map((tool, index) => (
          <span key={tool}>
            {index > 0 ? ', ' : ''}
            <code>{tool}</code>
          </span>
        ))}{' '}
        (<code>search</code> and <code>fetch</code> in the shapes ChatGPT&apos;s connectors read, a search with snippets, one post as markdown, the newest
        posts); every result names each post&apos;s canonical URL (the last three also as a <code>resource_link</code>). <code>llms.txt</code> and{' '}
        <code>pricing.md</code> are its resources. An unknown slug is a tool result with <code>isError: true</code>. A request whose <code>Origin</code> is
        another site&apos;s is refused with 403 (MCP clients send none). Its server card (a draft format, SEP-2127) is <code>/.well-known/mcp.json</code>.
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
              <th scope="col">Route</th>
              <th scope="col">Requests</th>
              <th scope="col">Window</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(routeLimits).map(([name, route]) => (
              <tr key={name}>
                <td>
                  <code>{route.path}</code>
                  {route.per === 'agent' ? ' (per verified agent)' : route.per === 'server' ? ' (per fediverse server)' : ''}
                </td>
                <td>{appliedLimit(name as LimitedRoute, settings().limits.verifiedAgentBudget).requests}</td>
                <td>{route.windowSeconds % 3600 === 0 ? `${route.windowSeconds / 3600} h` : `${route.windowSeconds / 60} min`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p>Every URL inside a feed item&apos;s HTML is absolute: relative links and images are resolved against the post&apos;s own URL.</p>
      <h2 id="problems">Errors</h2>
      <p>
        Errors from <code>/api/*</code> are RFC 9457 problem details (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>,{' '}
        <code>status</code>, <code>detail</code>, and for invalid input{' '}
        <code>
          errors: [{'{'}path, message{'}'}]
        </code>
        . A markdown URL that finds nothing answers a short <code>text/markdown</code> 404.
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
