import { MarkdownHtml } from '@/components/markdown-html';
import { apps } from '@/lib/content';
import { renderMarkdown } from '@/lib/content/render';
import { pageFacts } from '@/lib/feeds/page-markdown';
import { pageMetadata } from '@/lib/seo';

export function generateMetadata() {
  return pageMetadata({ ...pageFacts.apps(), path: '/apps' });
}

export default async function AppsPage() {
  const list = await Promise.all(apps().map(async (app) => ({ app, html: (await renderMarkdown(app.body)).html })));
  return (
    <>
      <h1>{pageFacts.apps().title}</h1>
      {list.length === 0 && <p>No apps yet.</p>}
      {list.map(({ app, html }) => (
        <section key={app.slug} className="card" aria-labelledby={`app-${app.slug}`}>
          <h2 id={`app-${app.slug}`}>{app.name}</h2>
          <p className="meta">
            Version {app.version}
            {app.platforms.length > 0 && ` · ${app.platforms.join(', ')}`}
          </p>
          <p>{app.description}</p>
          <MarkdownHtml html={html} />
          <p>
            <a className="button" href={`/api/apps/${app.slug}/download`}>
              Download {app.name} {app.version}
            </a>
          </p>
        </section>
      ))}
    </>
  );
}
