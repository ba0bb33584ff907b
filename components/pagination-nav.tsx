import Link from 'next/link';
import { absoluteUrl } from '@/lib/runtime/site';
import { pagePath, pageWindow, type Page } from '@/lib/content/pagination';

/**
 * Links to the other pages of a list of posts: newer, the page numbers, older.
 * Also `<link rel="prev|next">`, which React places in the document's head.
 * Nothing at all for a list that fits on one page.
 */
export function PaginationNav({ base, page }: { base: string; page: Page<unknown> }) {
  const { number, count } = page;
  if (count <= 1) return null;
  const newer = number > 1 ? pagePath(base, number - 1) : undefined;
  const older = number < count ? pagePath(base, number + 1) : undefined;
  return (
    <>
      {newer && <link rel="prev" href={absoluteUrl(newer)} />}
      {older && <link rel="next" href={absoluteUrl(older)} />}
      <nav aria-label="Pagination" className="pagination">
        <ul>
          {newer && (
            <li>
              <Link href={newer} rel="prev">
                <span aria-hidden="true">←</span> Newer posts
              </Link>
            </li>
          )}
          {pageWindow(number, count).map((shown, index) =>
            shown === null ? (
              <li key={`gap-${index}`} className="gap" aria-hidden="true">
                …
              </li>
            ) : (
              <li key={shown}>
                <Link href={pagePath(base, shown)} aria-current={shown === number ? 'page' : undefined}>
                  <span className="visually-hidden">Page </span>
                  {shown}
                </Link>
              </li>
            ),
          )}
          {older && (
            <li>
              <Link href={older} rel="next">
                Older posts <span aria-hidden="true">→</span>
              </Link>
            </li>
          )}
        </ul>
      </nav>
    </>
  );
}
