import { z } from 'zod';
import { publishedPosts, type Post } from '../content';
import { fieldErrors } from '../http/problem';
import { buildSearchIndex, type SearchHit, type SearchIndex } from './index';

export const SEARCH_QUERY_MAX_LENGTH = 200;
export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 50;

/** One parameter of a query string, given at most once. */
const once = <T extends z.ZodType<unknown, string | undefined>>(inner: T) =>
  z
    .array(z.string())
    .max(1, 'must be given at most once')
    .transform((values) => values[0])
    .pipe(inner);

/** `q`: the words to find (required, 1 to 200 characters once trimmed); `limit`: an integer from 1 to 50, default 10. */
export const searchQuerySchema = z.object({
  q: once(
    z.string({ error: 'is required' }).max(SEARCH_QUERY_MAX_LENGTH, `must be at most ${SEARCH_QUERY_MAX_LENGTH} characters`).trim().min(1, 'must not be empty'),
  ),
  limit: once(
    z
      .string()
      .regex(/^\d+$/, `must be an integer from 1 to ${SEARCH_LIMIT_MAX}`)
      .transform((value) => Number(value))
      .refine((value) => value >= 1 && value <= SEARCH_LIMIT_MAX, `must be an integer from 1 to ${SEARCH_LIMIT_MAX}`)
      .optional()
      .default(SEARCH_LIMIT_DEFAULT),
  ),
});
export type SearchQuery = { q: string; limit: number };

export const searchEntrySchema = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  date: z.string(),
  tags: z.array(z.string()),
  url: z.url(),
  markdownUrl: z.url(),
  snippet: z.string(),
});
export const searchResultsSchema = z.object({
  query: z.string(),
  total: z.number().int(),
  results: z.array(searchEntrySchema),
});
export type SearchResults = z.infer<typeof searchResultsSchema>;

/** The query of a search URL, or the field errors that make it invalid. */
export function parseSearchQuery(params: URLSearchParams): { ok: true; query: SearchQuery } | { ok: false; errors: { path: string; message: string }[] } {
  const parsed = searchQuerySchema.safeParse({ q: params.getAll('q'), limit: params.getAll('limit') });
  if (parsed.success) return { ok: true, query: parsed.data };
  return { ok: false, errors: fieldErrors(parsed.error, 'q') };
}

let built: { posts: readonly Post[]; index: SearchIndex<Post> } | undefined;

/**
 * The index of the published posts, built on the first search of the process
 * (a build never needs it). In development the list changes with the content
 * folder, and a new list is indexed again.
 */
function siteIndex(): SearchIndex<Post> {
  const posts = publishedPosts();
  if (built?.posts !== posts) built = { posts, index: buildSearchIndex(posts) };
  return built.index;
}

/** The published posts that match `q`, best first, each with a snippet: what the search page shows. */
export function findPublishedPosts({ q, limit }: SearchQuery): { query: string; total: number; hits: SearchHit<Post>[] } {
  return { query: q, ...siteIndex().search(q, limit) };
}

/** The published posts that match `q`, best first, with their URLs and a snippet: what /api/search answers. */
export function searchPublishedPosts(query: SearchQuery): SearchResults {
  const { total, hits } = findPublishedPosts(query);
  const { q } = query;
  return {
    query: q,
    total,
    results: hits.map(({ post, snippet }) => ({
      slug: post.slug,
      title: post.title,
      description: post.description,
      date: post.date,
      tags: post.tags,
      url: post.url,
      markdownUrl: post.markdownUrl,
      snippet,
    })),
  };
}
