import Link from 'next/link';
import type { Post } from '@/lib/content';
import { PostDate } from './dates';
import { UnpublishedMark } from './unpublished-mark';

/** `heading`: the level of each post title, one below the heading the list sits under. */
export function PostList({ posts, heading = 'h2' }: { posts: readonly Post[]; heading?: 'h2' | 'h3' }) {
  const Heading = heading;
  if (posts.length === 0) return <p>No posts yet.</p>;
  return (
    <ol className="post-list">
      {posts.map((post) => (
        <li key={post.slug}>
          <Heading>
            <Link href={`/blog/${post.slug}`}>{post.title}</Link>
          </Heading>
          <p className="meta">
            <PostDate value={post.date} />
            {!post.published && (
              <>
                {' · '}
                <UnpublishedMark post={post} />
              </>
            )}
          </p>
          <p>{post.description}</p>
        </li>
      ))}
    </ol>
  );
}
