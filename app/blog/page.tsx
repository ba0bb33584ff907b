import { BlogPage } from '@/components/post-pages';
import { publishedPosts, tags } from '@/lib/content';
import { pageOf } from '@/lib/content/pagination';
import { pageFacts } from '@/lib/feeds/page-markdown';
import { pageMetadata } from '@/lib/seo';
import { settings } from '@/lib/settings';

export function generateMetadata() {
  return pageMetadata({ ...pageFacts.blog(), path: '/blog' });
}

export default function BlogIndex() {
  // Page 1 always exists: a site with no posts has one empty page.
  return <BlogPage page={pageOf(publishedPosts(), 1, settings().site.postsPerPage)!} allTags={tags()} />;
}
