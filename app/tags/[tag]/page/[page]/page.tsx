import { notFound } from 'next/navigation';
import { pageHeading, TagPage } from '@/components/post-pages';
import { staticParams, tags } from '@/lib/content';
import { laterPageNumber, laterPageNumbers, pageOf, pagePath } from '@/lib/content/pagination';
import { pageMetadata } from '@/lib/seo';

// Page 1 is /tags/{tag} itself: /tags/{tag}/page/1, a page past the last and anything not a page number are 404.
export const dynamicParams = false;

export function generateStaticParams() {
  return staticParams(() => tags().flatMap((tag) => laterPageNumbers(tag.posts.length).map((number) => ({ tag: tag.slug, page: String(number) }))));
}

function findPage(slug: string, segment: string) {
  const tag = tags().find((entry) => entry.slug === slug);
  const number = laterPageNumber(segment);
  const page = tag && number !== undefined ? pageOf(tag.posts, number) : undefined;
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
    path: pagePath(`/tags/${tag.slug}`, page.number),
    tag: tag.name,
  });
}

export default async function TagLaterPage({ params }: PageProps<'/tags/[tag]/page/[page]'>) {
  const { tag: slug, page: segment } = await params;
  const found = findPage(slug, segment);
  if (!found) notFound();
  return <TagPage tag={found.tag} page={found.page} />;
}
