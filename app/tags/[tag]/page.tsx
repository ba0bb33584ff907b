import { notFound } from 'next/navigation';
import { TagPage } from '@/components/post-pages';
import { tagBySlug } from '@/lib/content';
import { pageOf } from '@/lib/content/pagination';
import { tagParams } from '@/lib/content/source';
import { pageFacts } from '@/lib/feeds/page-markdown';
import { pageMetadata } from '@/lib/seo';
import { settings } from '@/lib/settings';

export const dynamicParams = false;

export function generateStaticParams() {
  return tagParams();
}

export async function generateMetadata({ params }: PageProps<'/tags/[tag]'>) {
  const tag = tagBySlug((await params).tag);
  if (!tag) return {};
  return pageMetadata({ ...pageFacts.tag(tag), path: tag.path, tag: tag.name });
}

export default async function TagFirstPage({ params }: PageProps<'/tags/[tag]'>) {
  const tag = tagBySlug((await params).tag);
  if (!tag) notFound();
  return <TagPage tag={tag} page={pageOf(tag.posts, 1, settings().site.postsPerPage)!} />;
}
