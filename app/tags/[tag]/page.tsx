import { notFound } from 'next/navigation';
import { TagPage } from '@/components/post-pages';
import { staticParams, tags } from '@/lib/content';
import { pageOf } from '@/lib/content/pagination';
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
  return pageMetadata({ ...pageFacts.tag(tag), path: `/tags/${tag.slug}`, tag: tag.name });
}

export default async function TagFirstPage({ params }: PageProps<'/tags/[tag]'>) {
  const tag = findTag((await params).tag);
  if (!tag) notFound();
  return <TagPage tag={tag} page={pageOf(tag.posts, 1)!} />;
}
