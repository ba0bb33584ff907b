import Link from 'next/link';
import { MarkedText } from '@/components/marked-text';
import { PostSummary } from '@/components/post-list';
import { SearchForm } from '@/components/search-form';
import { site } from '@/lib/content';
import { pageMetadata } from '@/lib/seo';
import { findForPage, parseSearchQuery, SEARCH_LIMIT_MAX } from '@/lib/search/site';

export const dynamic = 'force-dynamic';

export function generateMetadata() {
  // Result lists are not pages of their own for search engines; the posts are.
  return { ...pageMetadata({ title: 'Search', description: `Search the posts of ${site().name}.`, path: '/search' }), robots: { index: false, follow: true } };
}

/** The search page: a GET form and its results, rendered on the server (no JavaScript needed). */
export default async function SearchPage({ searchParams }: PageProps<'/search'>) {
  const { q: given } = await searchParams;
  const text = (Array.isArray(given) ? given[0] : given) ?? '';
  const parsed = parseSearchQuery(new URLSearchParams({ q: text, limit: String(SEARCH_LIMIT_MAX) }));
  const answer = parsed.ok ? await findForPage(parsed.query) : undefined;
  const found = answer === 'busy' ? undefined : answer;
  // The reason a query is refused, as /api/search gives it (too long, too many words).
  const refused = !parsed.ok && text.trim() !== '' ? parsed.errors.find((error) => error.path === 'q')?.message : undefined;
  return (
    <>
      <h1>Search</h1>
      <SearchForm id="search-q" label="Search posts" defaultValue={text} className="post-form search-form" />
      {!found ? (
        <p className="notice">
          {answer === 'busy'
            ? 'Too many searches at once; try again in a moment.'
            : refused
              ? `That search cannot be run: it ${refused}.`
              : 'Type one or more words to search the titles, descriptions, tags and text of every post.'}
        </p>
      ) : found.hits.length === 0 ? (
        <p className="notice">
          {`No post matches “${found.query}”. Try fewer or shorter words, or browse `}
          <Link href="/blog">every post</Link>.
        </p>
      ) : (
        <>
          <p className="meta" role="status">
            {`${found.total === 1 ? '1 post matches' : `${found.total} posts match`} “${found.query}”${found.total > found.hits.length ? `; the best ${found.hits.length} are shown` : ''}.`}
          </p>
          <ol className="post-list search-results">
            {found.hits.map(({ post, snippet, marks, section }) => (
              <PostSummary
                key={post.slug}
                post={post}
                text={
                  <>
                    {section && (
                      <>
                        <Link href={`${post.path}#${encodeURIComponent(section.id)}`} className="section-link">
                          {section.heading}
                        </Link>
                        {': '}
                      </>
                    )}
                    <MarkedText text={snippet} marks={marks} />
                  </>
                }
              />
            ))}
          </ol>
        </>
      )}
    </>
  );
}
