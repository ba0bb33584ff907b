import Link from 'next/link';
import type { ReactNode } from 'react';
import type { Post } from '@/lib/content';
import { PostDate } from './dates';
import { UnpublishedMark } from './unpublished-mark';

type Heading = 'h2' | 'h3';

/** One post in a list: its title linked to its page, its date (and in development its mark), and `text` below. */
export function PostSummary({ post, heading: Heading = 'h2', text }: { post: Post; heading?: Heading; text: ReactNode }) {
  return (
    <li>
      <Heading>
        <Link href={post.path}>{post.title}</Link>
      </Heading>
      <p className="meta">
        <PostDate millis={post.dateMillis} />
        {!post.published && (
          <>
            {' · '}
            <UnpublishedMark post={post} />
          </>
        )}
      </p>
      <p>{text}</p>
    </li>
  );
}

/** `heading`: the level of each post title, one below the heading the list sits under. */
export function PostList({ posts, heading = 'h2' }: { posts: readonly Post[]; heading?: Heading }) {
  if (posts.length === 0) return <p>No posts yet.</p>;
  return (
    <ol className="post-list">
      {posts.map((post) => (
        <PostSummary key={post.slug} post={post} heading={heading} text={post.description} />
      ))}
    </ol>
  );
}
