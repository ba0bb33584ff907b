import { notFound } from 'next/navigation';
import { PostDate } from '@/components/dates';
import { JsonLd } from '@/components/json-ld';
import { MarkdownHtml } from '@/components/markdown-html';
import { TagList } from '@/components/tag-list';
import { UnpublishedMark } from '@/components/unpublished-mark';
import { contentPaths, publishedPost, site } from '@/lib/content';
import { lastChanged, zonedDateTime } from '@/lib/content/dates';
import { postParams } from '@/lib/content/source';
import { renderMarkdown } from '@/lib/content/render';
import { pageMetadata } from '@/lib/seo';
import { REACTIONS_ELEMENT } from '@/lib/fediverse/reactions-marker';

// The newest PRERENDER_POSTS posts are generated at build, the others on their first request;
// a slug that is not a published post is a 404 without rendering anything.
export const dynamicParams = true;
export const generateStaticParams = postParams;

export async function generateMetadata({ params }: PageProps<'/blog/[slug]'>) {
  const post = publishedPost((await params).slug);
  if (!post) return {};
  return pageMetadata({
    title: post.title,
    description: post.description,
    path: post.path,
    article: {
      slug: post.slug,
      published: zonedDateTime(post.dateMillis, site().timezone),
      modified: post.updatedMillis === undefined ? undefined : zonedDateTime(post.updatedMillis, site().timezone),
      author: post.author,
      tags: post.tags,
    },
  });
}

export default async function PostPage({ params }: PageProps<'/blog/[slug]'>) {
  const post = publishedPost((await params).slug);
  if (!post) notFound();
  const { html, toc, readingMinutes, words } = await renderMarkdown(post.body);
  const { author, name } = site();
  return (
    <article className="post">
      <JsonLd
        data={{
          '@context': 'https://schema.org',
          '@type': 'BlogPosting',
          headline: post.title,
          description: post.description,
          datePublished: zonedDateTime(post.dateMillis, site().timezone),
          dateModified: zonedDateTime(lastChanged(post), site().timezone),
          url: post.url,
          mainEntityOfPage: post.url,
          author: post.author ? { '@type': 'Person', name: post.author } : { '@type': 'Person', name: author.name, ...(author.url ? { url: author.url } : {}) },
          publisher: { '@type': 'Organization', name },
          keywords: post.tags,
          wordCount: words,
          inLanguage: site().language,
          encoding: { '@type': 'MediaObject', encodingFormat: 'text/markdown', contentUrl: post.markdownUrl },
        }}
      />
      <header className="post-header">
        <UnpublishedMark post={post} banner />
        <h1>{post.title}</h1>
        <p className="meta">
          <PostDate millis={post.dateMillis} />
          {post.updatedMillis !== undefined && (
            <>
              {' · Updated '}
              <PostDate millis={post.updatedMillis} />
            </>
          )}
          {` · ${readingMinutes} min read`}
        </p>
        <TagList tags={post.tags} />
      </header>
      {toc.length > 0 && (
        <nav className="toc" aria-labelledby="toc-title">
          <h2 id="toc-title">Contents</h2>
          <ol>
            {toc.map((entry) => (
              <li key={entry.id} className={entry.depth === 3 ? 'toc-sub' : undefined}>
                <a href={`#${entry.id}`}>{entry.text}</a>
              </li>
            ))}
          </ol>
        </nav>
      )}
      <MarkdownHtml html={html} />
      <footer className="post-footer">
        <p>
          <a href={contentPaths.postMarkdown(post.slug)} type="text/markdown">
            Read this post as markdown
          </a>
        </p>
      </footer>
      {/* What came back from the fediverse, filled in by lectern's server (lib/fediverse/reactions-page.ts); empty without it. */}
      <section {...REACTIONS_ELEMENT} dangerouslySetInnerHTML={{ __html: '' }} />
    </article>
  );
}
