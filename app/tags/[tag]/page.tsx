import { notFound } from 'next/navigation';
import { PostList } from '@/components/post-list';
import { staticParams, tags } from '@/lib/content';
import { pageFacts } from '@/lib/feeds/page-markdown';
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
  return pageMetadata({ ...pageFacts.tag(tag), path: `/tags/${tag.slug}` });
}

export default async function TagPage({ params }: PageProps<'/tags/[tag]'>) {
  const tag = findTag((await params).tag);
  if (!tag) notFound();
  return (
    <>
      <h1>{pageFacts.tag(tag).title}</h1>
      <PostList posts={tag.posts} />
    </>
  );
}
