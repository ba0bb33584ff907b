import { FEED_ITEM_COUNT } from '@/lib/feeds/feeds';
import { problemTypes } from '@/lib/http/problem';
import { site } from '@/lib/content';
import { pageMetadata } from '@/lib/seo';

export function generateMetadata() {
  return pageMetadata({ title: 'API and agent files', description: `How to read ${site().name} from a program: endpoints, formats and errors.`, path: '/docs/api' });
}

const endpoints: { path: string; type: string; what: string }[] = [
  { path: '/api/blog', type: 'application/json', what: 'Every published post, newest first: {"posts":[…]}. Optional limit: a positive integer.' },
  { path: '/api/blog/{slug}/markdown', type: 'text/markdown', what: 'The markdown source of one post, YAML frontmatter first.' },
  { path: '/blog/{slug}.md', type: 'text/markdown', what: 'The same markdown, at the post URL plus .md.' },
  { path: '/blog/{slug} with Accept: text/markdown', type: 'text/markdown', what: 'The same markdown, chosen by content negotiation (q-values honoured; responses vary on Accept).' },
  { path: '/api/home/markdown', type: 'text/markdown', what: 'The homepage as markdown, with links to the latest posts.' },
  { path: '/api/rss', type: 'application/rss+xml', what: `RSS 2.0 feed of the newest ${FEED_ITEM_COUNT} posts, full HTML in content:encoded.` },
  { path: '/atom.xml', type: 'application/atom+xml', what: `Atom 1.0 feed of the newest ${FEED_ITEM_COUNT} posts, full HTML in content.` },
  { path: '/feed.json', type: 'application/feed+json', what: `JSON Feed 1.1 of the newest ${FEED_ITEM_COUNT} posts, full HTML in content_html.` },
  { path: '/tags/{tag}/rss.xml', type: 'application/rss+xml', what: `RSS 2.0 feed of the newest ${FEED_ITEM_COUNT} posts with one tag ({tag} as in the tag page URL /tags/{tag}).` },
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
      <p>
        Every URL inside a feed item&apos;s HTML is absolute: relative links and images are resolved against the post&apos;s own URL.
      </p>
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
