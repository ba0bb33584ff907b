import { z } from 'zod';
import { absoluteUrl } from '../runtime/site';
import { publishedPost, publishedPosts, type Post } from '../content';
import { parseQuery, type ParsedQuery } from '../http/query';
import { nodeEnv } from '../settings';
import { findShared, shared } from '../process-shared';
import { buildSearchIndex, buildSearchIndexInSlices, SEARCH_BOUNDS, type SearchHit, type SearchIndex } from './index';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from './limits';
import { queryWords } from './text';

export const SEARCH_QUERY_MAX_LENGTH = 200;
export { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX };
/** Different words a query may search for: common English words and repeats are not counted. */
export const SEARCH_WORDS_MAX = SEARCH_BOUNDS.words;

/** The words of a query, 1 to 200 characters once trimmed, with at most 10 different words searched for. */
export const searchTextSchema = z
  .string({ error: 'is required' })
  .max(SEARCH_QUERY_MAX_LENGTH, `must be at most ${SEARCH_QUERY_MAX_LENGTH} characters`)
  .trim()
  .min(1, 'must not be empty')
  .refine(
    (q) => queryWords(q).length <= SEARCH_WORDS_MAX,
    `must have at most ${SEARCH_WORDS_MAX} different words (repeated words and common ones such as "the" are not counted)`,
  );

/** The query of `/api/search`, as its route (and lectern's server) reads it (lib/http/query.ts). */
export const searchQuerySchema = z.object({
  q: searchTextSchema.describe(
    `The words to find: 1 to ${SEARCH_QUERY_MAX_LENGTH} characters once trimmed, given once, with at most ${SEARCH_WORDS_MAX} different words (repeated words and common ones such as "the" are not counted).`,
  ),
  limit: z
    .string()
    .regex(/^\d+$/, `must be an integer from 1 to ${SEARCH_LIMIT_MAX}`)
    .transform((value) => Number(value))
    .refine((value) => value >= 1 && value <= SEARCH_LIMIT_MAX, `must be an integer from 1 to ${SEARCH_LIMIT_MAX}`)
    .optional()
    .default(SEARCH_LIMIT_DEFAULT)
    .describe(`How many results at most: an integer from 1 to ${SEARCH_LIMIT_MAX} (default ${SEARCH_LIMIT_DEFAULT}).`),
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
  section: z
    .string()
    .nullable()
    .describe(
      'The `##` or `###` heading of the section where the post matches best, as the page shows it; null when the best match is before the first heading or only in the title, tags or description.',
    ),
  sectionUrl: z.url().describe("The section's URL on the post page, with its `#anchor` (the heading's id); the post's URL when `section` is null."),
  snippet: z.string().describe('About 160 characters of plain text around the best match (… where cut).'),
  marks: z
    .array(z.object({ start: z.number().int(), end: z.number().int() }))
    .describe('The matched words in `snippet`: each is `snippet.slice(start, end)`, in UTF-16 code units (JavaScript string indexes), end excluded, in order.'),
});
export const searchResultsSchema = z.object({
  query: z.string(),
  total: z.number().int(),
  results: z.array(searchEntrySchema),
});
export type SearchResults = z.infer<typeof searchResultsSchema>;

/** The query of a search URL, or the field errors that make it invalid. */
export function parseSearchQuery(params: URLSearchParams): ParsedQuery<typeof searchQuerySchema> {
  return parseQuery(searchQuerySchema, params);
}

/** The process's index, shared by every copy of this module (lib/process-shared.ts): one index per process. */
type Indexed = {
  ready?: { key: string; index: SearchIndex<Post> };
  building?: string;
  /** The index of the posts that will be live at a coming post's time, built ahead (`prepareSearchIndexFor`), or being built. */
  next?: { key: string; index?: SearchIndex<Post> };
};
const indexed = () => shared<Indexed>('search-index', () => ({}));
/** The index each list of posts was answered from, by identity: a list is looked up by its slugs once. */
const byList = new WeakMap<readonly Post[], SearchIndex<Post>>();

/**
 * Which posts a list holds. In production the files do not change under a
 * running server; which of them are published does, and that is the list.
 */
const keys = new WeakMap<readonly Post[], string>();
function keyOf(posts: readonly Post[]): string {
  let key = keys.get(posts);
  if (key === undefined) keys.set(posts, (key = posts.map((post) => post.slug).join('\n')));
  return key;
}

function built(index: SearchIndex<Post>, started: number, how = '', log: (line: string) => void = console.log): SearchIndex<Post> {
  log(`search index of ${index.size} posts built ${how}in ${Math.round(performance.now() - started)} ms`);
  return index;
}

/**
 * Builds the index of the published posts now, unless this process (or
 * thread) has it: instrumentation.ts calls it as the app starts, and lectern's
 * server's search thread before the server listens (lib/server/search-worker.ts,
 * which says so in a line of its own: `log`), so no reader's request builds it.
 */
export function prepareSearchIndex(log: (line: string) => void = console.log): void {
  const posts = publishedPosts();
  const state = indexed();
  const key = keyOf(posts);
  if (state.ready?.key === key) return;
  const started = performance.now();
  state.ready = { key, index: built(buildSearchIndex(posts), started, 'at start ', log) };
  byList.set(posts, state.ready.index);
}

/**
 * Builds, in slices, the index of the posts that will be live at `at` (a coming post's time), and
 * keeps it aside: it answers searches from the moment those are the posts live now (`siteIndex`
 * picks an index by the posts live at each search), never before, so a post going live is found at
 * once instead of after the index is built anew, and the scheduled post is in no index that answers
 * before its time. lectern's server asks its search thread for it before each post's time.
 */
export function prepareSearchIndexFor(at: number, log: (line: string) => void = console.log): void {
  const posts = publishedPosts(at);
  const state = indexed();
  const key = keyOf(posts);
  if (state.ready?.key === key || state.next?.key === key) return;
  const started = performance.now();
  const next: NonNullable<Indexed['next']> = { key };
  state.next = next;
  void buildSearchIndexInSlices(posts).then((index) => {
    if (state.next !== next) return;
    next.index = index;
    log(`search index of ${index.size} posts built ahead of the next post's time in ${Math.round(performance.now() - started)} ms`);
  });
}

/**
 * Starts the index of the posts live now, when that list has changed (a post went live), in
 * slices: lib/publishing calls it when it makes the site anew, so the next search (the search
 * page's, MCP's) finds the new post rather than being the one that starts its index and answers
 * from the previous one.
 */
export function refreshSearchIndex(): void {
  if (!searchesInThread()) siteIndex();
}

/**
 * The index of the published posts. When the list changes (a scheduled post
 * goes live), the new index is built in slices between requests
 * (buildSearchIndexInSlices) and searches answer from the previous one until
 * it is ready. In development the list changes with the content folder, and
 * the index of each is built at once (a development site is small).
 */
function siteIndex(): SearchIndex<Post> {
  const posts = publishedPosts();
  const known = byList.get(posts);
  if (known) return known;
  const started = performance.now();
  if (nodeEnv() === 'development') {
    const index = buildSearchIndex(posts);
    byList.set(posts, index);
    return index;
  }
  const state = indexed();
  const key = keyOf(posts);
  if (state.ready?.key === key) {
    byList.set(posts, state.ready.index);
    return state.ready.index;
  }
  if (state.next?.key === key && state.ready) {
    // Built ahead for this moment (prepareSearchIndexFor); still being built, it is not started again:
    // the previous index answers until it is done.
    if (!state.next.index) return state.ready.index;
    state.ready = { key, index: state.next.index };
    state.next = undefined;
    byList.set(posts, state.ready.index);
    return state.ready.index;
  }
  if (!state.ready) {
    // The first search of the process: lectern's server asks for one before it listens (server.ts), and
    // a platform host has run instrumentation.ts; any other host builds it on its first search.
    state.ready = { key, index: built(buildSearchIndex(posts), started) };
    byList.set(posts, state.ready.index);
    return state.ready.index;
  }
  if (state.building !== key) {
    state.building = key;
    void buildSearchIndexInSlices(posts).then((index) => {
      if (state.building !== key) return;
      state.ready = { key, index: built(index, started, 'again for a new list of published posts ') };
      state.building = undefined;
    });
  }
  return state.ready.index;
}

/**
 * The published posts that match `q`, best first, each with its passage: what
 * the search page shows. Posts are this copy's: the index may have been built
 * by another (instrumentation.ts) or for the previous list of posts.
 */
export function findPublishedPosts({ q, limit }: SearchQuery): { query: string; total: number; hits: SearchHit<Post>[] } {
  const { total, hits } = siteIndex().search(q, limit);
  const current = hits.flatMap((hit) => {
    const post = publishedPost(hit.post.slug);
    return post ? [{ ...hit, post }] : [];
  });
  return { query: q, total, hits: current };
}

/** The published posts that match `q`, best first, with their URLs, the section of their best match and a marked snippet: what /api/search answers. */
export function searchPublishedPosts(query: SearchQuery): SearchResults {
  const { total, hits } = findPublishedPosts(query);
  const { q } = query;
  return {
    query: q,
    total,
    results: hits.map(({ post, section, snippet, marks }) => ({
      slug: post.slug,
      title: post.title,
      description: post.description,
      date: post.date,
      tags: post.tags,
      url: post.url,
      markdownUrl: post.markdownUrl,
      section: section?.heading ?? null,
      sectionUrl: section ? absoluteUrl(`${post.path}#${encodeURIComponent(section.id)}`) : post.url,
      snippet,
      marks,
    })),
  };
}

/** A search run in lectern's server's search thread: its results, or 'busy' when the thread's queue is full. */
export type ThreadSearch = (query: SearchQuery) => Promise<SearchResults | 'busy'>;
type InThread = { search?: ThreadSearch };
const IN_THREAD = 'search:thread';

/**
 * Called by lectern's server before Next starts: every search runs in its search thread, which holds
 * the process's one index (lib/server/search-thread.ts), so no copy of this module in the server's
 * own thread builds one (`searchesInThread`), and the search page asks the thread once `search` is set.
 */
export function runSearchesInThread(): InThread {
  return shared<InThread>(IN_THREAD, () => ({}));
}

/** Whether lectern's server runs the searches in its thread: then no copy of this module builds an index. */
export function searchesInThread(): boolean {
  return findShared<InThread>(IN_THREAD) !== undefined;
}

/**
 * What the search page shows: the published posts that match, as `findPublishedPosts` finds them,
 * from lectern's server's search thread where it runs one, or 'busy' when that thread's queue is full.
 */
export async function findForPage(query: SearchQuery): Promise<ReturnType<typeof findPublishedPosts> | 'busy'> {
  const search = findShared<InThread>(IN_THREAD)?.search;
  if (!search) return findPublishedPosts(query);
  const found = await search(query);
  if (found === 'busy') return found;
  const hits = found.results.flatMap(({ slug, snippet, marks, section, sectionUrl }) => {
    const post = publishedPost(slug);
    if (!post) return [];
    const id = section === null ? undefined : decodeURIComponent(new URL(sectionUrl).hash.slice(1));
    return [{ post, snippet, marks, section: section === null || id === undefined ? null : { heading: section, id }, score: 0 }];
  });
  return { query: found.query, total: found.total, hits };
}
