import Link from 'next/link';
import { contentPaths, tagSlug } from '@/lib/content';

export function TagList({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return null;
  return (
    <ul className="tags" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          <Link href={contentPaths.tag(tagSlug(tag))}>#{tag}</Link>
        </li>
      ))}
    </ul>
  );
}
