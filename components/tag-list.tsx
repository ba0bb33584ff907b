import Link from 'next/link';
import { tagSlug } from '@/lib/content';

export function TagList({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return null;
  return (
    <ul className="tags" aria-label="Tags">
      {tags.map((tag) => (
        <li key={tag}>
          <Link href={`/tags/${tagSlug(tag)}`}>#{tag}</Link>
        </li>
      ))}
    </ul>
  );
}
