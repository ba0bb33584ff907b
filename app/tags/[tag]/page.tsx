import { notFound } from 'next/navigation';
import { PostList } from '@/components/post-list';
import { staticParams, tags } from '@/lib/content';
import { pageMetadata } from '@/lib/seo';

export const dynamicParams = false;

export function generateStaticParams() {
  return staticParams(() => tags().map((tag) => ({ tag: tag.slug })));
}

function findTag(slug: string) {
  return tags().find((tag) => tag.slug === slug);
}

export async function generateMetadata({ params }: PageProps<'/tags/[tag]'>) {
  const tag = findTag((await params).tag);
  if (!tag) return {};
  return pageMetadata({ title: `Posts tagged “${tag.name}”`, description: `${tag.posts.length} posts about ${tag.name}.`, path: `/tags/${tag.slug}`, tag: tag.name });
}

export default async function TagPage({ params }: PageProps<'/tags/[tag]'>) {
  const tag = findTag((await params).tag);
  if (!tag) notFound();
  return (
    <>
      <h1>Posts tagged “{tag.name}”</h1>
      <p className="meta">
        <a href={`/tags/${tag.slug}/rss.xml`}>RSS feed of this tag</a>
      </p>
      <PostList posts={tag.posts} />
    </>
  );
}
