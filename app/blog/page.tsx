import Link from 'next/link';
import { PostList } from '@/components/post-list';
import { publishedPosts, tags } from '@/lib/content';
import { pageFacts } from '@/lib/feeds/page-markdown';
import { pageMetadata } from '@/lib/seo';

export function generateMetadata() {
  return pageMetadata({ ...pageFacts.blog(), path: '/blog' });
}

export default function BlogIndex() {
  const allTags = tags();
  return (
    <>
      <h1>{pageFacts.blog().title}</h1>
      {allTags.length > 0 && (
        <ul className="tags" aria-label="Tags">
          {allTags.map((tag) => (
            <li key={tag.slug}>
              <Link href={`/tags/${tag.slug}`}>
                #{tag.name} <span className="count">({tag.posts.length})</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <PostList posts={publishedPosts()} />
    </>
  );
}
