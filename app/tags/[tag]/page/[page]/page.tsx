import { notFound } from 'next/navigation';
import { pageHeading, TagPage } from '@/components/post-pages';
import { tagBySlug } from '@/lib/content';
import { laterPageNumber, pageOf, pagePath } from '@/lib/content/pagination';
import { tagPageParams } from '@/lib/content/source';
import { pageMetadata } from '@/lib/seo';
import { settings } from '@/lib/settings';

// Page 1 is /tags/{tag} itself: /tags/{tag}/page/1, a page past the last and anything not a page number are 404.
export const dynamicParams = false;

export function generateStaticParams() {
  return tagPageParams(settings().site.postsPerPage);
}

function findPage(slug: string, segment: string) {
  const tag = tagBySlug(slug);
  const number = laterPageNumber(segment);
  const page = tag && number !== undefined ? pageOf(tag.posts, number, settings().site.postsPerPage) : undefined;
  return tag && page ? { tag, page } : undefined;
}

export async function generateMetadata({ params }: PageProps<'/tags/[tag]/page/[page]'>) {
  const { tag: slug, page: segment } = await params;
  const found = findPage(slug, segment);
  if (!found) return {};
  const { tag, page } = found;
  return pageMetadata({
    title: pageHeading(`Posts tagged “${tag.name}”`, page),
    description: `${tag.posts.length} posts about ${tag.name}: page ${page.number} of ${page.count}.`,
    path: pagePath(tag.path, page.number),
    tag: tag.name,
  });
}

export default async function TagLaterPage({ params }: PageProps<'/tags/[tag]/page/[page]'>) {
  const { tag: slug, page: segment } = await params;
  const found = findPage(slug, segment);
  if (!found) notFound();
  return <TagPage tag={found.tag} page={found.page} />;
}
