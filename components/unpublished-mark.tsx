import type { Post } from '@/lib/content';
import { PostDate } from './dates';

/**
 * Marks a post the public site does not show (a draft, or dated in the
 * future). Only the development server lists such posts, so a production page
 * never renders this.
 */
export function UnpublishedMark({ post, banner = false }: { post: Pick<Post, 'published' | 'draft' | 'dateMillis'>; banner?: boolean }) {
  if (post.published) return null;
  const reason = post.draft ? (
    'a draft'
  ) : (
    <>
      dated <PostDate millis={post.dateMillis} />
    </>
  );
  if (!banner) {
    return <strong className="unpublished-label">Not published: {reason}</strong>;
  }
  return (
    <p className="unpublished-banner" role="note">
      <strong>Not published</strong>: this post is {reason}. Only the development server shows it; the built site serves it nowhere
      {post.draft ? ' until its draft: true is removed' : ' until a build after that date'}.
    </p>
  );
}
