import Link from 'next/link';
import type { Post } from '@/lib/content';
import { PostDate } from './dates';

export function PostList({ posts }: { posts: readonly Post[] }) {
  if (posts.length === 0) return <p>No posts yet.</p>;
  return (
    <ol className="post-list">
      {posts.map((post) => (
        <li key={post.slug}>
          <h3>
            <Link href={`/blog/${post.slug}`}>{post.title}</Link>
          </h3>
          <p className="meta">
            <PostDate value={post.date} />
          </p>
          <p>{post.description}</p>
        </li>
      ))}
    </ol>
  );
}
