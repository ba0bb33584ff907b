import Link from 'next/link';
import { MarkdownHtml } from '@/components/markdown-html';
import { PostList } from '@/components/post-list';
import { homePage, site } from '@/lib/content';
import { latestPosts } from '@/lib/content/source';
import { renderMarkdown } from '@/lib/content/render';
import { HOME_LATEST_COUNT } from '@/lib/feeds/home-markdown';
import { pageMetadata } from '@/lib/seo';
import { JsonLd } from '@/components/json-ld';
import { absoluteUrl } from '@/lib/runtime/site';

export function generateMetadata() {
  const { title, description } = homePage();
  return { ...pageMetadata({ title, description, path: '/' }), title: { absolute: title } };
}

export default async function HomePage() {
  const home = homePage();
  const { html } = await renderMarkdown(home.body);
  const { name, summary, author } = site();
  return (
    <>
      <JsonLd
        data={{
          '@context': 'https://schema.org',
          '@type': 'WebSite',
          name,
          description: summary,
          url: absoluteUrl('/'),
          author: { '@type': 'Person', name: author.name },
        }}
      />
      <h1>{home.title}</h1>
      <MarkdownHtml html={html} />
      <section aria-labelledby="latest">
        <h2 id="latest">Latest posts</h2>
        <PostList posts={latestPosts(HOME_LATEST_COUNT)} heading="h3" />
        <p>
          <Link href="/blog">All posts →</Link>
        </p>
      </section>
    </>
  );
}
