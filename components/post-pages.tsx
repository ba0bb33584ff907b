import Link from 'next/link';
import { contentPaths, type Post, type Tag } from '@/lib/content';
import type { Page } from '@/lib/content/pagination';
import { PaginationNav } from './pagination-nav';
import { PostList } from './post-list';

/** A list's heading on its first page, and with the page's number on the later ones. */
export function pageHeading(heading: string, { number, count }: Page<unknown>): string {
  return number === 1 ? heading : `${heading}, page ${number} of ${count}`;
}

/** One page of /blog: the tags, the page's posts, and the links to the other pages. */
export function BlogPage({ page, allTags }: { page: Page<Post>; allTags: readonly Tag[] }) {
  return (
    <>
      <h1>{pageHeading('Blog', page)}</h1>
      {allTags.length > 0 && (
        <ul className="tags" aria-label="Tags">
          {allTags.map((tag) => (
            <li key={tag.slug}>
              <Link href={tag.path}>
                #{tag.name} <span className="count">({tag.posts.length})</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <PostList posts={page.items} />
      <PaginationNav base="/blog" page={page} />
    </>
  );
}

/** One page of a tag's posts, and the links to the other pages. */
export function TagPage({ tag, page }: { tag: Tag; page: Page<Post> }) {
  return (
    <>
      <h1>{pageHeading(`Posts tagged “${tag.name}”`, page)}</h1>
      <p className="meta">
        <a href={contentPaths.tagRss(tag.slug)}>RSS feed of this tag</a>
      </p>
      <PostList posts={page.items} />
      <PaginationNav base={tag.path} page={page} />
    </>
  );
}
