import { notFound } from 'next/navigation';
import { BlogPage, pageHeading } from '@/components/post-pages';
import { publishedPosts, site, tags } from '@/lib/content';
import { laterPageNumber, pageOf, pagePath } from '@/lib/content/pagination';
import { blogPageParams } from '@/lib/content/source';
import { pageMetadata } from '@/lib/seo';
import { settings } from '@/lib/settings';

// Page 1 is /blog itself: /blog/page/1, a page past the last and anything not a page number are 404.
export const dynamicParams = false;

export function generateStaticParams() {
  return blogPageParams(settings().site.postsPerPage);
}

function findPage(segment: string) {
  const number = laterPageNumber(segment);
  return number === undefined ? undefined : pageOf(publishedPosts(), number, settings().site.postsPerPage);
}

export async function generateMetadata({ params }: PageProps<'/blog/page/[page]'>) {
  const page = findPage((await params).page);
  if (!page) return {};
  return pageMetadata({
    title: pageHeading('Blog', page),
    description: `Every post on ${site().name}, newest first: page ${page.number} of ${page.count}.`,
    path: pagePath('/blog', page.number),
  });
}

export default async function BlogLaterPage({ params }: PageProps<'/blog/page/[page]'>) {
  const page = findPage((await params).page);
  if (!page) notFound();
  return <BlogPage page={page} allTags={tags()} />;
}
